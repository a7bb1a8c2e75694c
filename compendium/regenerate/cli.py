"""The command line of :mod:`compendium.regenerate` (``python -m compendium.regenerate``; its options: ``--help``).

Without ``--check`` the results asked for are rerun in place, in dependency order, with a
progress bar; a result already done at the same commit is skipped (resumable) unless
``--force``. With ``--check`` each runs in a scratch copy and its files are compared with the
stored ones (:mod:`compendium.regenerate.runner`). ``--at-once N`` runs up to N results at the same time,
each in its own process, a result only once the results whose files it reads have ended (each result's
CPU seconds are its own process's). ``--list`` prints the registry, ``--write-costs`` the cost table
(:mod:`compendium.regenerate.costs`).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

import compendium.regenerate
from compendium import data
from compendium.parallel import add_parallel_arguments
from compendium.regenerate.costs import RECORD, coverage, merge_record, write_costs
from compendium.regenerate.figures import (FIGURES, FORMATS, PREFIX, check_figures, figure_notebooks, select_figures,
                                    stored_figures)
from compendium.regenerate.registry import BY_NAME, REGISTRY, check_registry, ordered, select
from compendium.regenerate.result import DERIVED, Result
from compendium.regenerate.runner import (check_one, environment, head_commit, load_state, make_scratch, results_table, run_one,
                                   save_state)

__all__ = ["CHEAP_BUDGET_MINUTES", "main"]

#: results that .ci/run checks on every run: measured on 2 cores (see data/derived/README.md)
CHEAP_BUDGET_MINUTES = 15


def _lock(scratch: Path) -> TextIO:
    """Hold the scratch folder for this run (two runs on one scratch folder would delete each other's
    copy and state); the open lock file, kept open while the run lasts."""
    lock = (scratch / "lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"another `python -m compendium.regenerate` is using {scratch}; wait for it, or pass "
                         "another --scratch") from None
    return lock


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compendium.regenerate",
                                     description=(compendium.regenerate.__doc__ or "").split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="results to run (names, or files of data/derived/; shell-style patterns allowed), "
                             "or figures of book/figures as figure:NAME (their notebook is rerun, the PNG and "
                             "SVG compared byte for byte)")
    parser.add_argument("--all", action="store_true", help="every result, in dependency order")
    parser.add_argument("--cheap", action="store_true",
                        help=f"the results checked by CI on every run (about {CHEAP_BUDGET_MINUTES} min on 2 cores)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate in a scratch copy and compare with the stored files (nothing stored changes)")
    parser.add_argument("--list", action="store_true", help="list the results, their commands and files, and stop")
    parser.add_argument("--scratch", type=Path, default=data.REPO_ROOT / "_build" / "regenerate",
                        help="folder for the scratch copy, the logs and the resumable state "
                             "(default _build/regenerate)")
    parser.add_argument("--force", action="store_true", help="rerun results already done at this commit")
    parser.add_argument("--write-costs", action="store_true",
                        help="write the cost table of data/derived/README.md from the recorded states, and stop")
    parser.add_argument("--write-codecheck", action="store_true",
                        help="write codecheck.yml (every output, its sha256 and its command), and stop")
    parser.add_argument("--check-codecheck", action="store_true",
                        help="check codecheck.yml against the stored files (exit 1 if one drifted), and stop")
    parser.add_argument("--at-once", type=int, default=1, metavar="N",
                        help="results run at the same time, each in its own process, a result only after those "
                             "whose files it reads (default 1: one at a time)")
    add_parallel_arguments(parser, what="units of the scripts that take them")
    args = parser.parse_args(argv)
    check_registry(REGISTRY)
    if args.write_codecheck or args.check_codecheck:
        from compendium.regenerate import codecheck

        if args.write_codecheck:
            (data.REPO_ROOT / codecheck.FILE).write_text(codecheck.text(), encoding="utf-8")
        problems = codecheck.drift()
        for line in problems:
            print(line, file=sys.stderr)
        listed = len(codecheck.manifest())
        print(f"{codecheck.FILE}: {listed} output files, "
              + ("every one as stored" if not problems else f"{len(problems)} drifted (regenerate them, or rerun "
                 "python -m compendium.regenerate --write-codecheck if the change is meant)"))
        return 1 if problems else 0
    if args.list:
        for res in REGISTRY:
            flags = ", ".join(f for f, on in (("cheap", res.cheap), (f"side env {res.side_env}", res.side_env),
                                              ("parallel", res.engine)) if on)
            print(f"{res.name}: {' '.join(res.command)}" + (f"  [{flags}]" if flags else ""))
            print("    writes " + ", ".join(res.outputs))
        owners = figure_notebooks(data.REPO_ROOT)
        for name in stored_figures(data.REPO_ROOT):
            print(f"{PREFIX}{name}: {owners.get(name, '(no notebook saves it)')}")
        print(coverage())
        return 0
    if args.write_costs:
        scratch = args.scratch.resolve()
        record_path = data.REPO_ROOT / DERIVED / RECORD
        record = merge_record(load_state(record_path), load_state(scratch / "state-check.json"),
                              load_state(scratch / "state-regenerate.json"))
        record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        write_costs(data.REPO_ROOT / DERIVED / "README.md", record["check"], record["regenerate"])
        print(f"merged the states of {scratch} into {DERIVED / RECORD}; wrote the cost table of "
              f"{DERIVED / 'README.md'}")
        print(coverage())
        return 0
    patterns = [p for p in args.names if not p.startswith(PREFIX)]
    figures = [p for p in args.names if p.startswith(PREFIX)]
    if figures and not patterns and not (args.all or args.cheap):
        return _figures(figures, args)
    if args.all:
        chosen = list(REGISTRY)
    elif args.cheap:
        chosen = [res for res in REGISTRY if res.cheap] + (select(patterns) if patterns else [])
    elif patterns:
        chosen = select(patterns)
    else:
        parser.error("name the results to run (NAME ...), or --all, or --cheap; --list lists them")
    chosen = ordered(chosen)
    root = data.REPO_ROOT
    scratch = args.scratch.resolve()
    mode = "check" if args.check else "regenerate"
    state_path = scratch / f"state-{mode}.json"
    state = load_state(state_path)
    commit = head_commit(root)
    scratch.mkdir(parents=True, exist_ok=True)
    lock = _lock(scratch)
    repo = make_scratch(root, scratch) if args.check else root
    done: dict[str, tuple[str, str, float, float, str]] = {}
    todo = []
    for res in chosen:
        previous = state.get(res.name)
        if previous and previous.get("commit") == commit and not args.force and previous["status"] != "failed":
            done[res.name] = (res.name, previous["status"] + " (earlier)", previous["cpu_seconds"],
                              previous["wall_seconds"], previous.get("detail", ""))
        else:
            todo.append(res)

    def work(res: Result) -> dict[str, Any]:
        log = scratch / "logs" / (res.name.replace("/", "__").replace(":", "_") + ".log")
        if args.check:
            return check_one(res, root, repo, log, args)
        code, cpu, wall = run_one(res, root, log, args, scratch=False)
        gone = [o for o in res.outputs if not (root / DERIVED / o).is_file()]
        status = "failed" if code else ("missing" if gone else "regenerated")
        detail = f"exit code {code}; see {log}" if code else ", ".join(gone)
        return {"status": status, "detail": detail, "cpu_seconds": round(cpu, 1),
                "wall_seconds": round(wall, 1), "files": len(res.outputs)}

    bar = tqdm(total=len(chosen), initial=len(done), desc=mode, unit="result", file=sys.stderr)
    waiting = {res.name for res in todo}  # a result starts once none of the results it comes after is waiting
    with ThreadPoolExecutor(max_workers=max(1, args.at_once)) as pool:
        running: dict[Future[dict[str, Any]], Result] = {}
        while todo or running:
            for res in [r for r in todo if not waiting.intersection(r.after)][:max(1, args.at_once) - len(running)]:
                todo.remove(res)
                running[pool.submit(work, res)] = res
            if not running:
                raise RuntimeError(f"no result can start: {sorted(waiting)} wait for each other")
            bar.set_postfix_str(", ".join(r.name for r in running.values()))
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                res = running.pop(future)
                waiting.discard(res.name)
                outcome = future.result()
                outcome.update(commit=commit, finished=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
                state[res.name] = outcome
                save_state(state_path, state)
                done[res.name] = (res.name, outcome["status"], outcome["cpu_seconds"], outcome["wall_seconds"],
                                  outcome["detail"])
                tqdm.write(f"{res.name}: {outcome['status']} ({outcome['cpu_seconds']:.1f} CPU s)", file=sys.stderr)
                bar.update()
    bar.close()
    rows = [done[res.name] for res in chosen]  # in dependency order, whatever order they finished in
    print(results_table(rows))
    bad = [r for r in rows if r[1].split(" (")[0] not in ("identical", "within tolerance", "regenerated")]
    files = sum(len(BY_NAME[r[0]].outputs) for r in rows)
    print(f"{len(rows)} results, {files} files; {len(rows) - len(bad)} {'as stored' if args.check else 'done'}, "
          f"{len(bad)} not; {sum(r[2] for r in rows) / 60:.1f} CPU minutes")
    if args.cheap:
        print(coverage())
    if figures:
        lock.close()  # the figures' run takes the scratch folder's lock in turn
        bad += [figures] if _figures(figures, args) else []
    return 1 if bad else 0


def _figures(patterns: Sequence[str], args: argparse.Namespace) -> int:
    """Rerun the notebooks of the figures asked for: in place, or in a scratch copy, comparing their files."""
    root = data.REPO_ROOT
    chosen = select_figures(patterns, root)
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    lock = _lock(scratch)  # noqa: F841 - held open (locked) while the run lasts
    repo = make_scratch(root, scratch) if args.check else root
    rows = []
    for notebook, names in tqdm(chosen.items(), desc="figures", unit="notebook", file=sys.stderr):
        log = scratch / "logs" / ("figures-" + notebook.replace("/", "__") + ".log")
        if args.check:
            found = check_figures(notebook, names, root, repo, log, environment(repo, True))
        else:
            before = {n: [(root / FIGURES / f"{n}{s}").read_bytes() if (root / FIGURES / f"{n}{s}").is_file()
                          else None for s in FORMATS] for n in names}
            res = Result(f"notebook:{notebook}", ("jupyter", "execute", notebook), ())
            code, _, wall = run_one(res, root, log, args, scratch=False)
            found = []
            for n in names:
                after = [(root / FIGURES / f"{n}{s}").read_bytes() if (root / FIGURES / f"{n}{s}").is_file()
                         else None for s in FORMATS]
                status = "failed" if code else ("unchanged" if after == before[n] else "regenerated")
                found.append({"name": f"{PREFIX}{n}", "status": status, "seconds": round(wall, 1),
                              "detail": f"exit code {code}; see {log}" if code else notebook})
        for row in found:
            tqdm.write(f"{row['name']}: {row['status']}", file=sys.stderr)
        rows += found
    width = max(len("figure"), *(len(r["name"]) for r in rows))
    print(f"{'figure':<{width}}  {'status':<12}  {'wall s':>8}  detail")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['status']:<12}  {r['seconds']:>8.1f}  {r['detail']}")
    good = ("identical",) if args.check else ("unchanged", "regenerated")
    bad = [r for r in rows if r["status"] not in good]
    print(f"{len(rows)} figures, {len(chosen)} notebooks; {len(rows) - len(bad)} "
          f"{'identical to the stored files' if args.check else 'done'}, {len(bad)} not")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
