"""The multihop benchmark: HotpotQA, 2WikiMultihopQA and MuSiQue questions in one pooled corpus."""
