#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Summarizes a pyverbs run recorded by pyverbs_watchdog.py.

Reads the watchdog's results (JSON lines) and prints a per-module table
(pass, fail, error, skip, hang, seconds), the skip reasons, the failing,
hung and abandoned tests with their details (a hung test with its Python
traceback), the slowest tests, and a closing line

    pyverbs: P passed, F failed, E errors, S skipped[, H hung][, N not run]

Exit status: 0 when every test ran, none failed, errored or hung, the run
had no problems and at least --min-pass tests passed; 1 otherwise.

usage: pyverbs_report.py RESULTS [--min-pass N]
"""

import argparse
import collections
import json
import sys

MAX_LISTED = 40       # tests listed by name per section before eliding
TRACEBACK_LINES = 40  # lines of a hung test's traceback shown
SLOWEST = 5
COLUMNS = ('pass', 'fail', 'error', 'skip', 'hang')
KNOWN = set(COLUMNS) | {'xfail', 'notrun'}


def load(lines):
    """(test records, run record or None) from the results' lines."""
    tests, run = [], None
    for line in lines:
        line = line.strip()
        if not line:
            continue
        rec = json.loads(line)
        if rec.get('kind') == 'test':
            tests.append(rec)
        elif rec.get('kind') == 'run':
            run = rec
    return tests, run


def render(tests, run, out, min_pass):
    per_mod = collections.OrderedDict()
    secs = collections.Counter()
    for rec in tests:
        per_mod.setdefault(rec['module'], collections.Counter())[
            rec['outcome']] += 1
        secs[rec['module']] += rec.get('secs') or 0.0

    w = max([len('module')] + [len(m) for m in per_mod])
    out.write('%-*s' % (w, 'module') +
              ''.join(' %6s' % c for c in COLUMNS) + ' %7s\n' % 'secs')
    tot = collections.Counter()
    for mod, row in per_mod.items():
        extra = []
        if row['xfail']:
            extra.append('%d expected failures' % row['xfail'])
        if row['notrun']:
            extra.append('%d not run' % row['notrun'])
        out.write('%-*s' % (w, mod) +
                  ''.join(' %6d' % row[c] for c in COLUMNS) +
                  ' %7.2f' % secs[mod] +
                  ('  (%s)' % ', '.join(extra) if extra else '') + '\n')
        tot.update(row)
    out.write('%-*s' % (w, 'total') +
              ''.join(' %6d' % tot[c] for c in COLUMNS) +
              ' %7.2f\n' % sum(secs.values()))

    reasons = collections.Counter()
    for rec in tests:
        if rec['outcome'] == 'skip':
            why = rec.get('reason') or '(no reason given)'
            if rec.get('fixture'):
                why += ' (whole class)'
            reasons[(rec['module'], why)] += 1
    if reasons:
        out.write('\nskip reasons:\n')
        for (mod, why), n in sorted(reasons.items(),
                                    key=lambda kv: (-kv[1], kv[0])):
            out.write('  %3d  %s: %s\n' % (n, mod, why))

    def listing(title, recs, tracebacks=False):
        if not recs:
            return
        out.write('\n%s:\n' % title)
        for rec in recs[:MAX_LISTED]:
            out.write('  %-5s %s\n' % (rec['outcome'].upper(), rec['id']))
            if rec.get('detail'):
                out.write('        %s\n' % rec['detail'][:300])
            tb = rec.get('traceback') if tracebacks else None
            if tb:
                lines = tb.splitlines()
                for ln in lines[:TRACEBACK_LINES]:
                    out.write('        | %s\n' % ln)
                if len(lines) > TRACEBACK_LINES:
                    out.write('        | ... %d more lines in the log\n' %
                              (len(lines) - TRACEBACK_LINES))
        if len(recs) > MAX_LISTED:
            out.write('  ... and %d more\n' % (len(recs) - MAX_LISTED))

    by = collections.defaultdict(list)
    for rec in tests:
        by[rec['outcome']].append(rec)
    listing('failures and errors', [r for r in tests
                                    if r['outcome'] in ('fail', 'error')])
    listing('hangs (killed by the per-test watchdog)', by['hang'],
            tracebacks=True)
    listing('not run', by['notrun'])

    timed = sorted((r for r in tests if r['outcome'] != 'hang'),
                   key=lambda r: -(r.get('secs') or 0))[:SLOWEST]
    if timed:
        out.write('\nslowest: %s\n' % ', '.join(
            '%s %.2fs' % (r['id'], r.get('secs') or 0) for r in timed))
    if run:
        out.write('run: %.1f s wall, %d test process(es), %.1f s starting '
                  'them, per-test limit %d s\n' % (
                      run['wall'], run['rounds'], run['startup_secs'],
                      run['test_timeout']))

    problems = []
    if run is None:
        problems.append('the results have no run record (the watchdog did '
                        'not finish)')
    else:
        problems.extend(run.get('problems') or [])
    for rec in by['hang']:
        problems.append('%s hung (%s)' % (rec['id'], rec.get('detail')))
    if tot['fail'] or tot['error']:
        problems.append('%d test(s) failed or errored' %
                        (tot['fail'] + tot['error']))
    odd = sorted(k for k in tot if k not in KNOWN)
    if odd:
        problems.append('unknown outcome(s) in the results: %s' %
                        ', '.join(odd))
    if tot['notrun']:
        problems.append('%d test(s) not run' % tot['notrun'])
    if tot['pass'] < min_pass:
        problems.append('only %d passed, at least %d required (--min-pass)'
                        % (tot['pass'], min_pass))

    out.write('\n')
    for p in problems:
        out.write('pyverbs: FAIL: %s\n' % p)
    line = 'pyverbs: %d passed, %d failed, %d errors, %d skipped' % (
        tot['pass'], tot['fail'], tot['error'], tot['skip'])
    for key, what in (('hang', 'hung'), ('notrun', 'not run'),
                      ('xfail', 'expected failures')):
        if tot[key]:
            line += ', %d %s' % (tot[key], what)
    out.write(line + '\n')
    return 1 if problems else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('results')
    ap.add_argument('--min-pass', type=int, default=0)
    args = ap.parse_args(argv)
    if args.min_pass < 0:
        ap.error('--min-pass must be >= 0')
    with open(args.results, encoding='utf-8') as f:
        tests, run = load(f)
    return render(tests, run, sys.stdout, args.min_pass)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
