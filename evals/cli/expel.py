"""`eval hotpotqa --train FILE --train-limit N`: ExpeL's protocol, memory gathered on training
questions with known answers and read by the other questions (evals.hotpotqa.expel).

    ./agent eval hotpotqa --file tests/data/hotpotqa/distractor_dev60.json --setting pooled \
        --train tests/data/hotpotqa/distractor_dev60.json --train-limit 40 --trials 2 \
        --max-retries 1 --out OUT --report docs/results/hotpotqa-expel-pooled
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.errors import CommandFailed, UsageError


def expel_handler(args: argparse.Namespace, base: Any) -> int:
    from evals.hotpotqa.expel import ExpelSettings, run_expel
    from evals.hotpotqa.expel_report import reached as reached_by
    from evals.hotpotqa.expel_report import seen_kind_calls, write_expel_report
    from evals.hotpotqa.stream import arm_summaries, arms_table

    s = ExpelSettings(base, train=args.train, train_limit=args.train_limit, trials=args.trials)
    try:
        result = run_expel(s)
    except ValueError as exc:  # bad file, limits, or settings of another run in OUT
        raise UsageError(str(exc)) from exc
    except (RuntimeError, OSError) as exc:
        raise CommandFailed(
            f"eval hotpotqa --train failed: {exc} (rerun with --out {base.out} to resume)"
        ) from exc
    arms = arm_summaries(result["by_arm"])
    reach = reached_by(result["by_arm"], result["kept"])
    seen = seen_kind_calls(result["by_arm"], reach)
    report = str(write_expel_report(args.report, result, s)) if args.report else None
    if args.json:
        print(json.dumps({"arms": arms, "seen_kind": seen, "results": str(base.out)}))
        return 0
    print(arms_table(arms))
    kept = result["kept"]
    print(
        f"\ntraining memory: {sum(k['kind'] == 'example' for k in kept)} worked examples, "
        f"{sum(k['kind'] == 'insight' and bool(k.get('id')) for k in kept)} insights; "
        f"it reached {len(reach)} of {len(result['test'])} test questions; "
        f"calls/q where a worked example reached: {seen['calls']}"
    )
    print(f"results: {base.out}" + (f"\nreport: {report}" if report else ""))
    return 0
