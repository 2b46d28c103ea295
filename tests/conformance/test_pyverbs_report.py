#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Self-test for pyverbs_report.py.

Builds a small throw-away package named `tests` whose test modules pass,
fail, error, skip (per test and per class), print library-style messages in
the middle of a test, and crash; runs it with the real unittest runner in
verbose mode (the format run_tests.py -v produces) and checks what the
report makes of the output. Needs no RDMA library.
"""

import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pyverbs_report  # noqa: E402

PASSED = 0
FAILED = 0


def check(cond, what):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print('FAIL: ' + what)


ALPHA = r'''
import sys, unittest

class AlphaTest(unittest.TestCase):
    def test_ok_doc(self):
        """A test with a docstring."""
    def test_ok_plain(self):
        pass
    def test_skip_quote(self):
        raise unittest.SkipTest("can't run here")
    def test_skip_plain(self):
        self.skipTest('No IB devices found')
    def test_fail(self):
        """Fails on purpose."""
        self.assertEqual(1, 2)
    def test_error(self):
        raise RuntimeError('boom: Failed to get devices list')
    def test_noisy(self):
        """Library prints while the test runs."""
        sys.stderr.write('softmlx5[123] stub: ibv_foo is not implemented\n')
        sys.stderr.flush()
    def test_noisy_plain(self):
        sys.stderr.write('softmlx5[123] error: something\n')
        sys.stderr.flush()
'''

BETA = r'''
import unittest

class BetaSkipped(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest('No supported port is up')
    def test_a(self):
        pass
    def test_b(self):
        pass

class BetaMore(unittest.TestCase):
    def test_one(self):
        pass
    @unittest.expectedFailure
    def test_xfail(self):
        self.assertTrue(False)
    def test_skip_again(self):
        self.skipTest('No IB devices found')
'''

CRASH = r'''
import os, signal, unittest

class CrashTest(unittest.TestCase):
    def test_first(self):
        pass
    def test_segv(self):
        os.kill(os.getpid(), signal.SIGSEGV)
'''


def run_suite(tmp, modules):
    proc = subprocess.run(
        [sys.executable, '-m', 'unittest', '-v'] +
        ['tests.' + m for m in modules],
        cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=dict(os.environ, PYTHONUNBUFFERED='1'))
    return proc.stdout.decode(), proc.returncode


def report(log_text, rc, min_pass=0, timed_out=False):
    rep = pyverbs_report.Report()
    rep.feed(io.StringIO(log_text))
    out = io.StringIO()
    status = rep.render(out, min_pass, rc, timed_out)
    return rep, out.getvalue(), status


def main():
    with tempfile.TemporaryDirectory() as tmp:
        pkg = os.path.join(tmp, 'tests')
        os.mkdir(pkg)
        for name, text in (('__init__', ''), ('test_alpha', ALPHA),
                           ('test_beta', BETA), ('test_crash', CRASH)):
            with open(os.path.join(pkg, name + '.py'), 'w') as f:
                f.write(text)

        # -- a complete run with every kind of result
        log, rc = run_suite(tmp, ['test_alpha', 'test_beta'])
        rep, out, status = report(log, rc)
        c = rep.counts()
        check(rep.ran == 11, 'Ran 11 tests parsed (got %r)' % rep.ran)
        check(rep.final == 'FAILED', 'final FAILED (got %r)' % rep.final)
        check(c['pass'] == 5, 'five passes parsed (got %d)' % c['pass'])
        check(c['fail'] == 1, 'one failure parsed (got %d)' % c['fail'])
        check(c['error'] == 1, 'one error parsed (got %d)' % c['error'])
        check(c['skip'] == 4, 'four skips parsed (got %d)' % c['skip'])
        check(c['xfail'] == 1, 'one expected failure (got %d)' % c['xfail'])
        check(rep.tests.get('tests.test_alpha.AlphaTest.test_noisy') ==
              ('pass', None), 'interleaved message does not hide a pass')
        check(rep.tests.get('tests.test_alpha.AlphaTest.test_noisy_plain') ==
              ('pass', None), 'interleaved message, no docstring')
        check(rep.tests.get('tests.test_alpha.AlphaTest.test_skip_quote') ==
              ('skip', "can't run here"), 'skip reason with a quote')
        check('pyverbs: 5 passed, 1 failed, 1 errors, 4 skipped, '
              '1 expected failures' in out, 'closing line:\n' + out)
        check(status == 1, 'failures give a non-zero status')
        check('   2  test_alpha: No IB devices found' not in out and
              '   1  test_alpha: No IB devices found' in out and
              '   1  test_beta: No IB devices found' in out,
              'skip reasons grouped per module:\n' + out)
        check('No supported port is up' in out, 'class-level skip reason')
        check('AssertionError: 1 != 2' in out,
              'failure shows the exception line:\n' + out)
        check('RuntimeError: boom: Failed to get devices list' in out,
              'error shows the exception line')
        lines = out.splitlines()
        row = [ln for ln in lines if ln.startswith('test_alpha ')]
        check(row and row[0].split()[1:5] == ['4', '1', '1', '2'],
              'test_alpha row pass/fail/error/skip: %r' % row)
        row = [ln for ln in lines if ln.startswith('test_beta ')]
        check(row and row[0].split()[1:5] == ['1', '0', '0', '2'],
              'test_beta row (class skip counted once): %r' % row)

        # -- a clean run: status 0; --min-pass enforced
        log, rc = run_suite(tmp, ['test_beta'])
        rep, out, status = report(log, rc, min_pass=1)
        check(rc == 0 and status == 0, 'clean run passes:\n' + out)
        check('pyverbs: 1 passed, 0 failed, 0 errors, 2 skipped, '
              '1 expected failures' in out,
              'clean closing line:\n' + out)
        rep, out, status = report(log, rc, min_pass=2)
        check(status == 1 and 'at least 2 required' in out,
              '--min-pass 2 fails with one pass:\n' + out)

        # -- a crash: no summary, names the test that was running
        log, rc = run_suite(tmp, ['test_crash'])
        rep, out, status = report(log, -11)
        check(status == 1, 'crash gives a non-zero status')
        check('did not run to completion' in out and
              'test_segv' in out and 'signal 11' in out,
              'crash is explained:\n' + out)

        # -- a timeout is reported as such
        rep, out, status = report(log, 124, timed_out=True)
        check(status == 1 and 'timed out while running' in out,
              'timeout reported:\n' + out)

        # -- garbage input
        rep, out, status = report('Traceback (most recent call last):\n'
                                  'ImportError: libibverbs.so.1\n', 1)
        check(status == 1 and 'did not run to completion' in out,
              'import failure reported:\n' + out)

    print('%d passed, %d failed' % (PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
