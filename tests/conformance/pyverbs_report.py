#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Summarizes the verbose output of rdma-core's pyverbs test runner.

Reads the log of `run_tests.py -v ...` (unittest's verbose format, possibly
interleaved with library messages on the same stream) and prints a
per-module table, the skip reasons, the failing tests with the last line of
their tracebacks, and a closing line

    pyverbs: P passed, F failed, E errors, S skipped

Exit status: 0 when the run completed with no failures or errors and at
least --min-pass tests passed; 1 otherwise.

usage: pyverbs_report.py LOG [--rc N] [--min-pass N] [--timed-out]
"""

import argparse
import collections
import re
import sys

# "test_x (tests.test_mod.Class.test_x)" (Python >= 3.11) or
# "test_x (tests.test_mod.Class)" (older), optionally followed by
# " ... RESULT" when the test has no docstring.
HEADER = re.compile(r'^(?P<name>\w+) \((?P<id>[\w.]+)\)(?: \.\.\. (?P<rest>.*))?$')
SKIP = re.compile(r'''^skipped (?P<reason>'.*'|".*")\s*$''')
RAN = re.compile(r'^Ran (?P<n>\d+) tests? in ')
FINAL = re.compile(r'^(?P<word>OK|FAILED)(?: \((?P<details>[^)]*)\))?\s*$')
DETAIL_BLOCK = re.compile(r'^(?P<kind>ERROR|FAIL|UNEXPECTED SUCCESS): (?P<name>\w+) \((?P<id>[\w.]+)\)')

MAX_LISTED = 40   # failing tests listed by name before eliding


def parse_result(text):
    """Maps unittest's verbose result text to (kind, skip reason) or None."""
    text = text.strip()
    if text == 'ok':
        return ('pass', None)
    if text == 'FAIL':
        return ('fail', None)
    if text == 'ERROR':
        return ('error', None)
    if text == 'expected failure':
        return ('xfail', None)
    if text == 'unexpected success':
        return ('fail', None)
    m = SKIP.match(text)
    if m:
        reason = m.group('reason')[1:-1]
        return ('skip', reason)
    return None


def module_of(test_id):
    """'tests.test_device.DMTest.test_x' -> 'test_device'."""
    parts = test_id.split('.')
    if parts and parts[0] == 'tests':
        parts = parts[1:]
    return parts[0] if parts else test_id


class Report:
    def __init__(self):
        self.tests = collections.OrderedDict()   # full id -> (kind, reason)
        self.order = []
        self.ran = None
        self.final = None           # 'OK' / 'FAILED'
        self.summary = {}           # failures/errors/skipped/... from summary
        self.details = {}           # full id -> last traceback line
        self.last_started = None
        # Results reported for a whole class or module (setUpClass raising
        # SkipTest, or failing): unittest prints them as a bare status line
        # and does not count them in "Ran N tests". Python 3.11 prints no
        # name, so they are attributed to the module of the last test.
        self.class_level = []       # (module, (kind, reason))

    def full_id(self, name, test_id):
        # Python 3.11 already ends the id with the method name.
        if test_id.endswith('.' + name):
            return test_id
        return test_id + '.' + name

    def feed(self, lines):
        current = None          # full id of the test awaiting its result
        # Traceback blocks after the run:
        #   ====...            -> state 'head'
        #   ERROR: name (id)      (detail_id)
        #   docstring line        (optional)
        #   ----...            -> state 'trace'
        #   Traceback ... / last unindented line = the exception
        #   ====... (next block) or ----... (end, before "Ran N tests")
        state = None
        detail_id = None
        detail_last = None

        def close_detail():
            if detail_id and detail_last:
                self.details[detail_id] = detail_last

        for raw in lines:
            line = raw.rstrip('\n')

            if line.startswith('=' * 20):
                close_detail()
                state, detail_id, detail_last = 'head', None, None
                current = None
                continue
            if state == 'head':
                m = DETAIL_BLOCK.match(line)
                if m and detail_id is None:
                    detail_id = self.full_id(m.group('name'), m.group('id'))
                elif line.startswith('-' * 20):
                    state = 'trace'
                continue
            if state == 'trace':
                if line.startswith('-' * 20):
                    close_detail()
                    state, detail_id, detail_last = None, None, None
                    continue
                if line.strip() and not line[0].isspace() and \
                        not line.startswith('Traceback'):
                    detail_last = line.strip()
                if not RAN.match(line):
                    continue

            m = RAN.match(line)
            if m:
                close_detail()
                self.ran = int(m.group('n'))
                current = None
                state = None
                continue
            m = FINAL.match(line)
            if m and self.ran is not None:
                self.final = m.group('word')
                for item in (m.group('details') or '').split(','):
                    if '=' in item:
                        k, v = item.strip().split('=', 1)
                        if v.isdigit():
                            self.summary[k] = int(v)
                continue

            m = HEADER.match(line)
            if m:
                current = self.full_id(m.group('name'), m.group('id'))
                self.last_started = current
                if current not in self.tests:
                    self.order.append(current)
                    self.tests[current] = None
                rest = m.group('rest')
                if rest is not None:
                    res = parse_result(rest)
                    if res:
                        self.tests[current] = res
                        current = None
                continue

            if current is None or self.tests.get(current) is not None:
                res = parse_result(line)
                if res and self.last_started:
                    self.class_level.append(
                        (module_of(self.last_started), res))
                continue
            # Docstring line "text ... RESULT", or a bare RESULT on its own
            # line when something else was printed while the test ran.
            res = None
            if ' ... ' in line:
                res = parse_result(line.split(' ... ', 1)[1])
                if res is None:
                    # "docstring ... <library message>": result comes later
                    continue
            else:
                res = parse_result(line)
            if res:
                self.tests[current] = res
                current = None
        close_detail()

    # ------------------------------------------------------------ reporting
    def counts(self):
        c = collections.Counter()
        for res in self.tests.values():
            if res:
                c[res[0]] += 1
        for _, res in self.class_level:
            c[res[0]] += 1
        return c

    def render(self, out, min_pass, rc, timed_out):
        per_mod = collections.OrderedDict()
        reasons = collections.Counter()
        unfinished = []
        for tid in self.order:
            mod = module_of(tid)
            row = per_mod.setdefault(mod, collections.Counter())
            res = self.tests[tid]
            if res is None:
                unfinished.append(tid)
                row['unknown'] += 1
                continue
            row[res[0]] += 1
            if res[0] == 'skip':
                reasons[(mod, res[1])] += 1
        for mod, res in self.class_level:
            row = per_mod.setdefault(mod, collections.Counter())
            row[res[0]] += 1
            if res[0] == 'skip':
                reasons[(mod, res[1] + ' (whole class)')] += 1

        w = max([len('module')] + [len(m) for m in per_mod])
        out.write('%-*s %6s %6s %6s %6s\n' % (w, 'module', 'pass', 'fail',
                                              'error', 'skip'))
        tot = collections.Counter()
        for mod, row in per_mod.items():
            out.write('%-*s %6d %6d %6d %6d%s\n' % (
                w, mod, row['pass'], row['fail'], row['error'], row['skip'],
                ('  (%d without a result)' % row['unknown'])
                if row['unknown'] else ''))
            tot.update(row)
        out.write('%-*s %6d %6d %6d %6d\n' % (w, 'total', tot['pass'],
                                              tot['fail'], tot['error'],
                                              tot['skip']))

        if reasons:
            out.write('\nskip reasons:\n')
            for (mod, why), n in sorted(reasons.items(),
                                        key=lambda kv: (-kv[1], kv[0])):
                out.write('  %3d  %s: %s\n' % (n, mod, why))

        bad = [t for t in self.order
               if self.tests[t] and self.tests[t][0] in ('fail', 'error')]
        if bad:
            out.write('\nfailures and errors:\n')
            for t in bad[:MAX_LISTED]:
                kind = self.tests[t][0].upper()
                out.write('  %-5s %s\n' % (kind, t))
                if t in self.details:
                    out.write('        %s\n' % self.details[t][:200])
            if len(bad) > MAX_LISTED:
                out.write('  ... and %d more (see the full log)\n' %
                          (len(bad) - MAX_LISTED))

        problems = []
        complete = self.ran is not None and self.final is not None
        if timed_out:
            problems.append('the suite timed out%s' % (
                (' while running ' + self.last_started)
                if self.last_started else ''))
        elif not complete:
            what = 'the suite did not run to completion (no unittest summary)'
            if rc is not None and rc < 0:
                what += '; killed by signal %d' % -rc
            elif rc is not None and rc > 128:
                what += '; exit status %d (signal %d?)' % (rc, rc - 128)
            if self.last_started:
                what += '; last test started: ' + self.last_started
            problems.append(what)
        if unfinished and complete:
            out.write('\nnote: %d test(s) have no parsable result line '
                      '(output interleaved); totals below come from '
                      'unittest\'s summary\n' % len(unfinished))

        # The closing numbers: unittest's own summary when there is one.
        if complete:
            failed = self.summary.get('failures', 0) + \
                self.summary.get('unexpected successes', 0)
            errors = self.summary.get('errors', 0)
            skipped = self.summary.get('skipped', 0)
            xfail = self.summary.get('expected failures', 0)
            # Class-level results are in the summary but not in "Ran".
            passed = self.ran + len(self.class_level) - failed - errors - \
                skipped - xfail
            parsed = self.counts()
            if (parsed['pass'], parsed['fail'], parsed['error'],
                    parsed['skip']) != (passed, failed, errors, skipped):
                out.write('\nnote: per-test parse (%d/%d/%d/%d) differs from '
                          'unittest\'s summary; the summary is used\n' %
                          (parsed['pass'], parsed['fail'], parsed['error'],
                           parsed['skip']))
        else:
            parsed = self.counts()
            passed, failed = parsed['pass'], parsed['fail']
            errors, skipped = parsed['error'], parsed['skip']
            xfail = parsed['xfail']

        if complete and self.final == 'FAILED' and failed + errors == 0:
            problems.append('unittest reported FAILED')
        if complete and rc not in (None, 0) and failed + errors == 0:
            problems.append('run_tests.py exited with status %d' % rc)
        if failed or errors:
            problems.append('%d test(s) failed or errored' % (failed + errors))
        if passed < min_pass:
            problems.append('only %d passed, at least %d required '
                            '(--min-pass)' % (passed, min_pass))

        out.write('\n')
        for p in problems:
            out.write('pyverbs: FAIL: %s\n' % p)
        line = 'pyverbs: %d passed, %d failed, %d errors, %d skipped' % (
            passed, failed, errors, skipped)
        if xfail:
            line += ', %d expected failures' % xfail
        out.write(line + '\n')
        return 1 if problems else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('log')
    ap.add_argument('--rc', type=int, default=None,
                    help='exit status of run_tests.py')
    ap.add_argument('--min-pass', type=int, default=0)
    ap.add_argument('--timed-out', action='store_true')
    args = ap.parse_args(argv)
    if args.min_pass < 0:
        ap.error('--min-pass must be >= 0')
    rep = Report()
    with open(args.log, encoding='utf-8', errors='replace') as f:
        rep.feed(f)
    return rep.render(sys.stdout, args.min_pass, args.rc, args.timed_out)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
