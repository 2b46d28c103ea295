#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Self-test for the pyverbs runner: pyverbs_child.py, pyverbs_watchdog.py
and pyverbs_report.py.

Builds a throw-away test package laid out like rdma-core's (an __init__.py
that imports every module, an args_parser.py) whose modules pass, fail,
error, skip (per test and per class), fail to import, crash, hang in a test
(with a descendant in its own session), hang in a class fixture, hang
while being imported, rely on the package's import order, or fail on the
way out. Runs it through the real watchdog with a short
per-test limit and checks the results and the report. Needs no RDMA library.
"""

import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True      # no __pycache__ in the source tree
import pyverbs_report  # noqa: E402

LIMIT = 3       # per-test limit of the runs with hangs, seconds
PASSED = 0
FAILED = 0


def check(cond, what):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print('FAIL: ' + what)


# Like rdma-core's: importing the package imports every module, so the
# runner must not go through it for one broken module to stay one error.
INIT = r'''
import importlib, os
for fn in sorted(os.listdir(os.path.dirname(__file__))):
    if fn.startswith('test_') and fn.endswith('.py'):
        importlib.import_module('.' + fn[:-3], __name__)
'''

ARGS_PARSER = r'''
class _Parser:
    args = None
    def parse_args(self):
        self.args = {'dev': None}
    def get_config(self):
        return self.args
parser = _Parser()
'''

ALPHA = r'''
import sys, unittest
from args_parser import parser

class AlphaTest(unittest.TestCase):
    def test_ok_doc(self):
        """A test with a docstring."""
        assert parser.get_config() is not None
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
    def test_subtest(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)
    @unittest.expectedFailure
    def test_xfail(self):
        self.assertTrue(False)
    @unittest.expectedFailure
    def test_xpass(self):
        pass
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
    def test_skip_again(self):
        self.skipTest('No IB devices found')
'''

BROKEN = r'''
raise ImportError('cannot import name Foo from pyverbs.bar')
'''

CRASH = r'''
import os, signal, unittest

class CrashTest(unittest.TestCase):
    def test_a_first(self):
        pass
    def test_b_segv(self):
        os.kill(os.getpid(), signal.SIGSEGV)
    def test_c_after(self):
        pass
'''

# The descendant starts its own session: only the walk down the process
# tree finds it, not the process group.
HANG = r'''
import os, time, unittest

class HangTest(unittest.TestCase):
    def test_a_first(self):
        pass
    def test_b_hang(self):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            while True:
                time.sleep(60)
        with open(os.environ['HANG_PID_FILE'], 'w') as f:
            f.write(str(pid))
        self.wait_forever()
    def wait_forever(self):
        while True:
            time.sleep(60)
    def test_c_after(self):
        pass
'''

FIXHANG = r'''
import time, unittest

class AFirst(unittest.TestCase):
    def test_a(self):
        pass

class BStuck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        while True:
            time.sleep(60)
    def test_never(self):
        pass
'''

IMPHANG = r'''
import time
while True:
    time.sleep(60)
'''

ZETA = r'''
import unittest

class ZetaTest(unittest.TestCase):
    def test_last(self):
        pass
'''

EXIT = r'''
import atexit, os, unittest
atexit.register(os._exit, 3)

class ExitTest(unittest.TestCase):
    def test_ok(self):
        pass
'''

EXITHANG = r'''
import atexit, time, unittest
atexit.register(time.sleep, 3600)

class ExitHangTest(unittest.TestCase):
    def test_ok(self):
        pass
'''

# Helpers that import each other, like rdma-core's tests.mlx5_base and
# tests.utils: importing xbase first fails, importing xutils first works.
XBASE = r'''
import tests.xutils
class Base:
    pass
'''

XUTILS = r'''
from tests.xbase import Base
'''

USES_UTILS = r'''
import unittest
import tests.xutils

class UtilsTest(unittest.TestCase):
    def test_ok(self):
        pass
'''

USES_BASE = r'''
import unittest
from tests.xbase import Base

class BaseTest(unittest.TestCase):
    def test_ok(self):
        self.assertTrue(Base)
'''

# Each directory is one test package: every run imports all its modules.
SUITES = {
    'main': (('test_alpha', ALPHA), ('test_beta', BETA),
             ('test_broken', BROKEN), ('test_crash', CRASH),
             ('test_fixhang', FIXHANG), ('test_hang', HANG),
             ('test_imphang', IMPHANG), ('test_zeta', ZETA)),
    'clean': (('test_beta', BETA), ('test_crash', CRASH),
              ('test_hang', HANG), ('test_zeta', ZETA),
              ('xbase', XBASE), ('xutils', XUTILS),
              ('test_aa_uses_utils', USES_UTILS),
              ('test_zz_uses_base', USES_BASE)),
    'exit': (('test_exit', EXIT),),
    'exithang': (('test_exithang', EXITHANG),),
}


def alive(pid):
    """True unless PID is gone or a zombie."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def reap_orphan(pid_file):
    """The hang tests' descendant: whether it was alive (then killed, so a
    failing run leaves nothing behind); None without a pid file."""
    try:
        with open(pid_file) as f:
            pid = int(f.read())
        os.unlink(pid_file)
    except (OSError, ValueError):
        return None
    if not alive(pid):
        return False
    os.kill(pid, signal.SIGKILL)
    return True


def watchdog(suite, names, test_timeout=LIMIT, timeout=300, env=None):
    log = os.path.join(suite, '..', 'run.log')
    results = os.path.join(suite, '..', 'results.jsonl')
    for f in (log, results):
        if os.path.exists(f):
            os.unlink(f)
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, 'pyverbs_watchdog.py'),
         '--suite', suite, '--log', log, '--results', results,
         '--python', sys.executable, '--test-timeout', str(test_timeout),
         '--timeout', str(timeout), '--'] + names,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=dict(os.environ, **(env or {})))
    wall = time.monotonic() - began
    with open(results) as f:
        tests, run = pyverbs_report.load(f)
    with open(log) as f:
        log_text = f.read()
    return proc, tests, run, log_text, wall


def report(tests, run, min_pass=0):
    out = io.StringIO()
    status = pyverbs_report.render(tests, run, out, min_pass)
    return out.getvalue(), status


def row(out, module):
    lines = [ln for ln in out.splitlines() if ln.startswith(module + ' ')]
    return lines[0].split()[1:6] if lines else None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {}
        for key, modules in SUITES.items():
            suite = dirs[key] = os.path.join(tmp, key, 'tests')
            os.makedirs(suite)
            for name, text in (('__init__', INIT),
                               ('args_parser', ARGS_PARSER)) + modules:
                with open(os.path.join(suite, name + '.py'), 'w') as f:
                    f.write(text)
        pid_file = os.path.join(tmp, 'hang.pid')
        suite = dirs['main']

        # -- everything at once, in run_tests.py's order
        names = ['test_alpha', 'test_beta', 'test_broken', 'test_crash',
                 'test_fixhang', 'test_hang', 'test_imphang', 'test_zeta']
        proc, tests, run, log, wall = watchdog(
            suite, names, env={'HANG_PID_FILE': pid_file})
        check(proc.returncode == 0, 'watchdog exit status %d:\n%s' %
              (proc.returncode, proc.stdout.decode()))
        by_id = {t['id']: t for t in tests}

        def outcome(tid):
            return by_id.get(tid, {}).get('outcome')

        check(outcome('test_alpha.AlphaTest.test_ok_doc') == 'pass',
              'docstring test passes (the parser was set up)')
        check(outcome('test_alpha.AlphaTest.test_noisy') == 'pass',
              'library output does not hide a pass')
        check(outcome('test_alpha.AlphaTest.test_fail') == 'fail' and
              by_id['test_alpha.AlphaTest.test_fail']['detail'] ==
              'AssertionError: 1 != 2', 'failure with its exception line')
        check(outcome('test_alpha.AlphaTest.test_error') == 'error' and
              'boom' in by_id['test_alpha.AlphaTest.test_error']['detail'],
              'error with its exception line')
        check(outcome('test_alpha.AlphaTest.test_subtest') == 'fail',
              'a failing subtest fails its test')
        check(outcome('test_alpha.AlphaTest.test_xfail') == 'xfail',
              'expected failure')
        check(outcome('test_alpha.AlphaTest.test_xpass') == 'fail',
              'unexpected success is a failure')
        check(by_id.get('test_alpha.AlphaTest.test_skip_quote', {})
              .get('reason') == "can't run here", 'skip reason kept')
        check(outcome('test_beta.BetaSkipped.setUpClass') == 'skip' and
              by_id['test_beta.BetaSkipped.setUpClass']['fixture'],
              'class-level skip recorded once, as a fixture')
        check('test_beta.BetaSkipped.test_a' not in by_id,
              'tests of a skipped class have no records of their own')
        check(outcome('test_broken.<import>') == 'error' and
              'cannot import name Foo' in
              by_id['test_broken.<import>']['detail'],
              'a module that cannot be imported is an error')
        check(outcome('test_crash.CrashTest.test_b_segv') == 'error' and
              'signal 11' in by_id['test_crash.CrashTest.test_b_segv']
              ['detail'], 'a crash is the test\'s error, with the signal')
        check(outcome('test_crash.CrashTest.test_c_after') == 'pass',
              'the run goes on after a crash')
        check(outcome('test_fixhang.AFirst.test_a') == 'pass',
              'tests before a fixture hang pass')
        check(outcome('test_fixhang.<between tests>') == 'hang',
              'a hang outside any test is named by its module')
        check(outcome('test_fixhang.BStuck.test_never') == 'notrun',
              'the rest of that module is abandoned')
        hang = by_id.get('test_hang.HangTest.test_b_hang', {})
        check(hang.get('outcome') == 'hang', 'a hung test is named')
        check('wait_forever' in hang.get('traceback', ''),
              'the hung test\'s traceback is captured:\n%s' %
              hang.get('traceback'))
        check('killed 2 processes' in (hang.get('detail') or ''),
              'the test process and its descendant are killed: %r' %
              hang.get('detail'))
        orphan = reap_orphan(pid_file)
        check(orphan is False,
              'the descendant in its own session is gone (alive: %r)' %
              orphan)
        check(outcome('test_hang.HangTest.test_c_after') == 'pass',
              'the run goes on after a hang')
        check(outcome('test_imphang.<import>') == 'hang',
              'a module that hangs while imported is a hang')
        check(outcome('test_zeta.ZetaTest.test_last') == 'pass',
              'the modules after every kind of trouble run')
        check(sum(1 for t in tests if t['outcome'] == 'hang') == 3,
              'three hangs')
        check(wall < 3 * LIMIT + 30, 'bounded time: %.1f s' % wall)
        check(run['rounds'] == 5, 'five test processes (four restarts): %r'
              % run['rounds'])
        check(run['problems'] == [], 'no run problems: %r' % run['problems'])
        check('test_ok_plain (tests.test_alpha.AlphaTest.test_ok_plain) ... '
              'ok' in log, 'the log keeps unittest\'s verbose output')
        check('HANG test_hang.HangTest.test_b_hang' in proc.stdout.decode(),
              'the hang is announced as it happens')

        out, status = report(tests, run)
        check(status == 1, 'failures, errors and hangs fail the run')
        check(row(out, 'test_alpha') == ['3', '3', '1', '2', '0'],
              'test_alpha row: %r\n%s' % (row(out, 'test_alpha'), out))
        check(row(out, 'test_beta') == ['1', '0', '0', '2', '0'],
              'test_beta row (class skip counted once): %r' %
              row(out, 'test_beta'))
        check(row(out, 'test_broken') == ['0', '0', '1', '0', '0'],
              'import error in the table: %r' % row(out, 'test_broken'))
        check(row(out, 'test_hang') == ['2', '0', '0', '0', '1'],
              'test_hang row: %r' % row(out, 'test_hang'))
        check(row(out, 'total') == ['10', '3', '3', '4', '3'],
              'totals: %r\n%s' % (row(out, 'total'), out))
        check('pyverbs: 10 passed, 3 failed, 3 errors, 4 skipped, 3 hung, '
              '1 not run, 1 expected failures' in out, 'closing line:\n' + out)
        check('   1  test_alpha: No IB devices found' in out and
              '   1  test_beta: No IB devices found' in out,
              'skip reasons grouped per module:\n' + out)
        check('No supported port is up (whole class)' in out,
              'class-level skip reason')
        check('pyverbs: FAIL: test_hang.HangTest.test_b_hang hung' in out,
              'the hang is in the summary by name')
        check('        | ' in out and 'in wait_forever' in out,
              'the report shows the hung test\'s traceback')
        check('1 test(s) not run' in out, 'abandoned tests fail the run')

        # -- modules not asked for are imported too: a hang there is still
        # a hang, an import error there is no error of this run
        proc, tests, run, log, wall = watchdog(suite, ['test_zeta'])
        check([(t['id'], t['outcome']) for t in tests] ==
              [('test_imphang.<import>', 'hang'),
               ('test_zeta.ZetaTest.test_last', 'pass')],
              'only the named module and the import hang: %r' % tests)
        check('cannot import name Foo' in log,
              'an unrequested module\'s import error is in the log')

        suite = dirs['clean']
        # -- the package's import order (tests.xutils before tests.xbase)
        proc, tests, run, log, wall = watchdog(suite, ['test_zz_uses_base'])
        check([(t['id'], t['outcome']) for t in tests] ==
              [('test_zz_uses_base.BaseTest.test_ok', 'pass')],
              'modules are imported in the package\'s order: %r\n%s' %
              (tests, log))

        # -- a clean run passes; --min-pass is enforced
        proc, tests, run, log, wall = watchdog(
            suite, ['test_beta', 'test_zeta'])
        out, status = report(tests, run, min_pass=2)
        check(status == 0, 'clean run passes:\n' + out)
        check('pyverbs: 2 passed, 0 failed, 0 errors, 2 skipped\n' in out,
              'clean closing line:\n' + out)
        out, status = report(tests, run, min_pass=3)
        check(status == 1 and 'at least 3 required' in out,
              '--min-pass 3 fails with two passes:\n' + out)

        # -- single tests by name
        proc, tests, run, log, wall = watchdog(
            suite, ['test_crash.CrashTest.test_c_after',
                    'test_beta.BetaMore.test_one', 'test_nosuch',
                    'test_zeta.NoSuchClass'])
        check([(t['id'], t['outcome']) for t in tests] ==
              [('test_nosuch.<import>', 'error'),
               ('test_zeta.NoSuchClass', 'error'),
               ('test_crash.CrashTest.test_c_after', 'pass'),
               ('test_beta.BetaMore.test_one', 'pass')],
              'named tests run alone, in order; unknown names are '
              'errors: %r' % tests)

        # -- the whole run's time limit
        proc, tests, run, log, wall = watchdog(
            suite, ['test_hang', 'test_zeta'], test_timeout=60, timeout=3,
            env={'HANG_PID_FILE': pid_file})
        out, status = report(tests, run)
        check(status == 1 and 'longer than --timeout 3 s' in out,
              'out of time:\n' + out)
        check([t['outcome'] for t in tests] == ['pass', 'notrun', 'notrun',
                                                'notrun'],
              'out of time: the rest is not run: %r' % tests)
        check(wall < 20, 'out of time is bounded: %.1f s' % wall)
        orphan = reap_orphan(pid_file)
        check(orphan is False,
              'out of time: the descendant is gone too (alive: %r)' % orphan)

        # -- a process that fails on its way out
        proc, tests, run, log, wall = watchdog(dirs['exit'], ['test_exit'])
        out, status = report(tests, run)
        check(status == 1 and 'status 3 after its last test' in out,
              'a bad exit after the last test fails the run:\n' + out)

        # -- a process that does not exit after its last test
        proc, tests, run, log, wall = watchdog(dirs['exithang'],
                                               ['test_exithang'])
        out, status = report(tests, run)
        check(status == 1 and 'did not exit within %d s' % LIMIT in out,
              'a hang on the way out fails the run:\n' + out)
        check(wall < LIMIT + 10, 'the exit hang is bounded: %.1f s' % wall)

        # -- results cut short
        out, status = report(tests, None)
        check(status == 1 and 'no run record' in out,
              'missing run record fails:\n' + out)
        bad = dict(tests[0], outcome='weird')
        out, status = report([bad], run)
        check(status == 1 and 'unknown outcome' in out,
              'unknown outcome fails:\n' + out)
        tests, run = pyverbs_report.load(io.StringIO(
            json.dumps(dict(kind='run', wall=1, rounds=1, startup_secs=0,
                            test_timeout=60, problems=[])) + '\n'))
        out, status = report(tests, run)
        check(status == 0 and 'pyverbs: 0 passed' in out,
              'an empty run with --min-pass 0 is not an error:\n' + out)

    print('%d passed, %d failed' % (PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
