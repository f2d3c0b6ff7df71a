"""HotpotQA distractor: the data and its EM/F1, the answerers, single runs and Reflexion trials."""
