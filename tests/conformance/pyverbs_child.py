#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs pyverbs tests in this process and reports each one to the watchdog.

pyverbs_watchdog.py starts this (under `softmlx5 run`) in the directory of
rdma-core's test package. It runs what `run_tests.py -v NAME...` runs -- the
named modules or tests, in order, in one process, with unittest's verbose
output on stderr -- and writes one JSON object per line to the file
descriptor in $PYVERBS_EVENT_FD:

  {"ev": "hello", "pid": N}
  {"ev": "importing", "module": M}
  {"ev": "import_error", "module": M, "selected": bool, "detail": "..."}
  {"ev": "plan", "tests": [ID, ...]}          the order they will run in
  {"ev": "start", "id": ID}
  {"ev": "result", "id": ID, "outcome": O, "reason": R, "detail": D,
   "fixture": bool}
  {"ev": "done"}

"selected" is false for a module imported only because every module is.
IDs lack the package prefix (test_device.DMTest.test_dm_read). Outcomes:
pass, fail, error, skip, xfail. A result with "fixture" true comes from a
class or module fixture (setUpClass raising SkipTest, say), not a test.
SIGUSR1 dumps every thread's Python traceback to stderr (faulthandler).

usage: pyverbs_child.py [--skip-import MODULE]... NAME...
"""

import faulthandler
import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import signal
import sys
import traceback
import unittest

PKG = 'tests'
# unittest names a fixture failure "setUpClass (tests.test_x.Class)".
FIXTURE = re.compile(r'^(?P<what>\w+) \((?P<where>[\w.]+)\)$')
DETAIL_MAX = 300

_fd = None
_pid = None


def emit(**event):
    # Forked children (multiprocessing, test_fork) share the descriptor.
    if os.getpid() != _pid:
        return
    data = (json.dumps(event) + '\n').encode()
    while data:
        data = data[os.write(_fd, data):]


def short(test_id):
    return test_id[len(PKG) + 1:] if test_id.startswith(PKG + '.') else \
        test_id


def exc_line(err):
    if not err:
        return None
    line = traceback.format_exception_only(err[0], err[1])[-1].strip()
    return line[:DETAIL_MAX]


class EventResult(unittest.TextTestResult):
    """unittest's verbose result that also reports every outcome."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._current = None
        self._outcome = None

    def _record(self, test, outcome, reason=None, detail=None):
        if test is self._current:
            # Keep the first verdict: a tearDown error after a failure
            # does not turn the failure into something else.
            if self._outcome is None or self._outcome[0] == 'pass':
                self._outcome = (outcome, reason, detail)
            return
        m = FIXTURE.match(test.id())
        tid = test.id()
        if m:
            tid = short(m.group('where')) + '.' + m.group('what')
        emit(ev='result', id=short(tid), outcome=outcome, reason=reason,
             detail=detail, fixture=True)

    def startTest(self, test):
        self._current = test
        self._outcome = None
        emit(ev='start', id=short(test.id()))
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        outcome, reason, detail = self._outcome or \
            ('error', None, 'the test reported no outcome')
        emit(ev='result', id=short(test.id()), outcome=outcome,
             reason=reason, detail=detail, fixture=False)
        self._current = None

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, 'fail', detail=exc_line(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, 'error', detail=exc_line(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, 'skip', reason=reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, 'xfail')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, 'fail', detail='unexpected success')

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._record(test, 'fail' if failed else 'error',
                         detail=exc_line(err))


def flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def load(names, skip_import):
    """Imports the test modules and loads NAMES (run_tests.py's order).

    Like the package's __init__.py, every test module is imported, in
    sorted order: the modules import each other's helpers and rely on that
    order (tests.mlx5_base and tests.utils import each other). Unlike it,
    each import is tried on its own, so one module that cannot be imported
    is that module's error, not the end of the run. SKIP_IMPORT: modules
    whose import the watchdog already gave up on.
    """
    suite_dir = os.getcwd()
    sys.path.insert(0, suite_dir)
    spec = importlib.machinery.ModuleSpec(PKG, None, is_package=True)
    spec.submodule_search_locations = [suite_dir]
    sys.modules[PKG] = importlib.util.module_from_spec(spec)
    from args_parser import parser
    sys.argv[1:] = []
    parser.parse_args()

    selected = {name.split('.')[0] for name in names}
    every = sorted(fn[:-3] for fn in os.listdir(suite_dir)
                   if fn.startswith('test_') and fn.endswith('.py'))
    broken = set(skip_import)
    for base in every + sorted(selected - set(every)):
        if base in broken:
            continue
        emit(ev='importing', module=base)
        try:
            importlib.import_module(PKG + '.' + base)
        except BaseException as e:   # SystemExit and SkipTest included
            if isinstance(e, KeyboardInterrupt):
                raise
            traceback.print_exc()
            broken.add(base)
            emit(ev='import_error', module=base, selected=base in selected,
                 detail=exc_line(sys.exc_info()))

    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for name in names:
        base = name.split('.')[0]
        if base in broken:
            continue
        try:
            obj = sys.modules[PKG + '.' + base]
            for part in name.split('.')[1:]:
                obj = getattr(obj, part)
        except AttributeError:
            traceback.print_exc()
            emit(ev='result', id=name, outcome='error', reason=None,
                 detail='no such test in %s' % base, fixture=False)
            continue
        suite.addTest(loader.loadTestsFromName(PKG + '.' + name))
    return suite


def main(argv):
    global _fd, _pid
    skip_import = []
    while argv[:1] == ['--skip-import']:
        skip_import.append(argv[1])
        argv = argv[2:]
    names = argv
    _fd = int(os.environ['PYVERBS_EVENT_FD'])
    _pid = os.getpid()
    os.set_inheritable(_fd, False)   # not into programs a test execs
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    emit(ev='hello', pid=_pid)

    suite = load(names, skip_import)
    emit(ev='plan', tests=[short(t.id()) for t in flatten(suite)])
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
                                     resultclass=EventResult)
    runner.run(suite)
    emit(ev='done')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
