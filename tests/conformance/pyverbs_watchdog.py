#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs rdma-core's pyverbs tests under a per-test watchdog.

The tests run as run_tests.py runs them: in one process, in order, so one
test's leftovers reach the tests after it (test_device's
test_multi_process_alloc_dm once hung only when test_atomic ran first).
That process (pyverbs_child.py, under `softmlx5 run`) reports every test's
start and result through a pipe. When --test-timeout seconds pass with no
progress, the watchdog dumps the process's Python traceback (SIGUSR1, which
the child hands to faulthandler) into the log, kills the process and
everything it started, records the test as hung and starts a fresh process
on the tests after it. A process that dies in a test is handled the same
way, the test recorded as an error.

Writes the tests' own output to --log and one JSON object per line to
--results, read by pyverbs_report.py:

  {"kind": "test", "id": ..., "module": ..., "outcome": ..., "reason": ...,
   "detail": ..., "secs": ..., "fixture": bool[, "traceback": ...]}
  {"kind": "run", "wall": ..., "test_timeout": ..., "rounds": ...,
   "startup_secs": ..., "problems": [...]}

Outcomes: those of pyverbs_child.py plus hang (no result in time) and notrun
(abandoned: the whole run's --timeout, or the rest of a module after a hang
outside any test). Every module is imported, as the package does; one
asked for that cannot be imported is an error with the id MODULE.<import>,
and any whose import hangs or kills the process is a hang or error with
that id. "secs" is the time since the previous result, so a class fixture
counts towards the test after it.

usage: pyverbs_watchdog.py --suite DIR --log FILE --results FILE
           [--softmlx5 PATH] [--python PATH] [--test-timeout S]
           [--timeout S] NAME...

Exit status: 0 when the run completed (whatever the tests did); 2 for usage
errors.
"""

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, 'pyverbs_child.py')
TRACEBACK_WAIT = 2.0    # seconds for faulthandler's dump to reach the log
TRACEBACK_MAX = 16000   # characters of a dump kept in the results


def module_of(name):
    return name.split('.')[0]


def proc_table():
    """{pid: (ppid, pgid, state)} from /proc; processes that vanish are
    left out."""
    table = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and ')'.
        fields = stat.rsplit(')', 1)[1].split()
        table[int(entry)] = (int(fields[1]), int(fields[2]), fields[0])
    return table


def kill_tree(proc):
    """SIGKILLs PROC, its descendants and its process group; returns how
    many live processes there were."""
    table = proc_table()
    victims = {proc.pid}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, pgid, _) in table.items():
            if pid not in victims and (ppid in victims or pgid == proc.pid):
                victims.add(pid)
                grew = True
    live = [p for p in victims if p in table and table[p][2] != 'Z']
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    proc.wait()
    return len(live)


class Events:
    """Reads the child's JSON lines from a pipe without blocking."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b''
        self.eof = False
        self.bad = 0

    def read(self, timeout):
        events = []
        if self.eof:
            time.sleep(timeout)
            return events
        ready, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        while ready:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.eof = True
                break
            self.buf += chunk
            ready, _, _ = select.select([self.fd], [], [], 0)
        *lines, self.buf = self.buf.split(b'\n')
        for line in lines:
            try:
                events.append(json.loads(line))
            except ValueError:
                self.bad += 1
        return events


class Round:
    """What the watchdog knows about one test process."""

    def __init__(self, names, began):
        self.names = names
        self.began = began
        self.pid = None
        self.importing = None   # module being imported
        self.plan = None        # test ids in run order
        self.pos = 0            # plan index after the last started test
        self.running = None     # id of the test started with no result yet
        self.started = set()
        self.covered = set()    # planned tests a fixture result stands for
        self.prev_result = began
        self.done = None        # time of the "done" event

    def rest(self):
        """Planned tests that have not started and will not."""
        return [t for t in self.plan[self.pos:]
                if t not in self.started and t not in self.covered]


class Watchdog:
    def __init__(self, args, log, out):
        self.args = args
        self.log = log
        self.out = out
        self.records = []
        self.problems = []
        self.rounds = 0
        self.startup = 0.0
        self.deadline = time.monotonic() + args.timeout
        self.recorded = set()       # ids with a record
        self.import_errors = set()  # selected modules that cannot import
        self.skip_imports = set()   # modules whose import hung or crashed

    # ------------------------------------------------------------ output
    def say(self, text):
        self.out.write('pyverbs: %s\n' % text)
        self.out.flush()

    def mark(self, text):
        self.log.write(('\n==== pyverbs watchdog: %s\n' % text).encode())
        self.log.flush()

    def add(self, tid, outcome, secs=0.0, reason=None, detail=None,
            fixture=False, **extra):
        rec = dict(kind='test', id=tid, module=module_of(tid),
                   outcome=outcome, reason=reason, detail=detail,
                   secs=round(secs, 3), fixture=fixture)
        rec.update(extra)
        self.records.append(rec)
        self.recorded.add(tid)

    # ------------------------------------------------------------ one process
    def dump_traceback(self, pid):
        """Has the child's faulthandler dump its threads; returns the text
        that reached the log."""
        self.log.flush()
        start = os.fstat(self.log.fileno()).st_size
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError:
            return ''
        # Wait until the dump stops growing.
        size, end = start, time.monotonic() + TRACEBACK_WAIT
        while time.monotonic() < end:
            time.sleep(0.2)
            now = os.fstat(self.log.fileno()).st_size
            if now > start and now == size:
                break
            size = now
        with open(self.log.name, 'rb') as f:
            f.seek(start)
            text = f.read(TRACEBACK_MAX).decode('utf-8', 'replace')
        return text.strip('\n')

    def run_round(self, names):
        """Runs NAMES in one test process; returns the names still to run
        (empty when done)."""
        a = self.args
        self.rounds += 1
        self.mark('process %d: %d name(s)' % (self.rounds, len(names)))
        cmd = ([a.softmlx5, 'run', '--'] if a.softmlx5 else []) + \
            [a.python, CHILD]
        for mod in sorted(self.skip_imports):
            cmd += ['--skip-import', mod]
        cmd += names
        rfd, wfd = os.pipe()
        env = dict(os.environ, PYVERBS_EVENT_FD=str(wfd),
                   PYTHONUNBUFFERED='1', PYTHONDONTWRITEBYTECODE='1')
        rnd = Round(names, time.monotonic())
        proc = subprocess.Popen(cmd, cwd=a.suite, stdin=subprocess.DEVNULL,
                                stdout=self.log, stderr=subprocess.STDOUT,
                                pass_fds=(wfd,), env=env,
                                start_new_session=True)
        os.close(wfd)
        events = Events(rfd)
        try:
            return self._watch(proc, events, rnd)
        finally:
            if proc.returncode is None:
                kill_tree(proc)
            else:
                # Whatever the test process left behind in its group.
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
            os.close(rfd)

    def _handle(self, rnd, ev, now):
        kind = ev.get('ev')
        if kind == 'hello':
            rnd.pid = ev['pid']
        elif kind == 'importing':
            rnd.importing = ev['module']
        elif kind == 'import_error':
            rnd.importing = None
            # A module only imported because every module is, is not one
            # this run was asked for; a new process reports it again.
            if ev.get('selected') and ev['module'] not in self.import_errors:
                self.import_errors.add(ev['module'])
                self.add(ev['module'] + '.<import>', 'error',
                         detail=ev.get('detail'))
        elif kind == 'plan':
            rnd.importing = None
            rnd.plan = ev['tests']
            rnd.prev_result = now
            self.startup += now - rnd.began
        elif kind == 'start':
            rnd.running = ev['id']
            rnd.started.add(ev['id'])
            if ev['id'] in rnd.plan:
                rnd.pos = rnd.plan.index(ev['id']) + 1
        elif kind == 'result':
            # Not twice for a name a new process was handed again.
            if ev['id'] not in self.recorded:
                self.add(ev['id'], ev['outcome'], now - rnd.prev_result,
                         ev.get('reason'), ev.get('detail'),
                         ev.get('fixture', False))
            rnd.prev_result = now
            if ev['id'] == rnd.running:
                rnd.running = None
            if ev.get('fixture'):
                # "mod.Class.setUpClass": none of mod.Class's tests will run.
                scope = ev['id'].rsplit('.', 1)[0] + '.'
                rnd.covered.update(t for t in rnd.plan
                                   if t.startswith(scope))
        elif kind == 'done':
            rnd.done = now

    def _watch(self, proc, events, rnd):
        limit = self.args.test_timeout
        last = rnd.began        # time of the last event
        while True:
            if rnd.done is not None:
                wake = rnd.done + limit
            else:
                wake = min(last + limit, self.deadline)
            wait = min(1.0, max(0.05, wake - time.monotonic()))
            for ev in events.read(wait):
                last = time.monotonic()
                self._handle(rnd, ev, last)
            status = proc.poll()
            if status is not None:
                # Gone: what it wrote is in the pipe (or a descendant
                # still holds the pipe open, so no EOF).
                while True:
                    evs = events.read(0)
                    if not evs:
                        break
                    for ev in evs:
                        self._handle(rnd, ev, time.monotonic())
                return self._ended(status, rnd)
            now = time.monotonic()
            if rnd.done is not None:
                # Exiting gets the same time as a test.
                if now - rnd.done >= limit:
                    n = kill_tree(proc)
                    self.problems.append(
                        'the test process did not exit within %d s of its '
                        'last test (killed %d process%s)' %
                        (limit, n, '' if n == 1 else 'es'))
                    return []
            elif now >= self.deadline:
                return self._out_of_time(proc, rnd)
            elif now - last >= limit:
                return self._hang(proc, rnd, now)

    def importable(self, names):
        bad = self.import_errors | self.skip_imports
        return [n for n in names if module_of(n) not in bad]

    def _culprit(self, rnd):
        """(id, names still to run) for whatever the process was doing."""
        if rnd.running:
            return rnd.running, rnd.rest()
        if rnd.plan is None:
            # Importing: blame that module and go on without it.
            mod = rnd.importing or module_of(rnd.names[0])
            self.skip_imports.add(mod)
            return mod + '.<import>', self.importable(rnd.names)
        # No test running: a class or module fixture. The rest of the next
        # test's module is given up so the run cannot go round in circles.
        rest = rnd.rest()
        if not rest:
            return '<after the last test>', []
        mod = module_of(rest[0])
        for t in rest:
            if module_of(t) == mod:
                self.add(t, 'notrun', detail='its module was abandoned')
        return (mod + '.<between tests>',
                [t for t in rest if module_of(t) != mod])

    def _hang(self, proc, rnd, now):
        tb = self.dump_traceback(rnd.pid) if rnd.pid else ''
        n = kill_tree(proc)
        why = 'no progress for %d s; killed %d process%s' % (
            self.args.test_timeout, n, '' if n == 1 else 'es')
        tid, rest = self._culprit(rnd)
        self.add(tid, 'hang', now - rnd.prev_result, detail=why,
                 traceback=tb)
        self.say('HANG %s: %s' % (tid, why))
        self.mark('HANG %s: %s' % (tid, why))
        return rest

    def _ended(self, status, rnd):
        if rnd.done is not None:
            if status != 0:
                self.problems.append('the test process exited with status '
                                     '%d after its last test' % status)
            return []
        why = ('killed by signal %d' % -status) if status < 0 else \
            ('exited with status %d' % status)
        tid, rest = self._culprit(rnd)
        detail = 'the test process died (%s)' % why
        self.add(tid, 'error', time.monotonic() - rnd.prev_result,
                 detail=detail)
        self.say('ERROR %s: %s' % (tid, detail))
        self.mark('ERROR %s: %s' % (tid, detail))
        return rest

    def _out_of_time(self, proc, rnd):
        kill_tree(proc)
        if rnd.running:
            self.add(rnd.running, 'notrun',
                     detail='was running when the run ran out of time')
        if rnd.plan is None:
            rest = self.importable(rnd.names)
        else:
            rest = rnd.rest()
        for t in rest:
            self.add(t, 'notrun', detail='the run ran out of time')
        self.problems.append('the run took longer than --timeout %d s' %
                             self.args.timeout)
        self.say('FAIL: out of time (--timeout %d s)' % self.args.timeout)
        self.mark('out of time (--timeout %d s)' % self.args.timeout)
        return []

    # ------------------------------------------------------------ whole run
    def run(self, names):
        began = time.monotonic()
        while names:
            if time.monotonic() >= self.deadline:
                for t in names:
                    self.add(t, 'notrun', detail='the run ran out of time')
                self.problems.append('the run took longer than --timeout '
                                     '%d s' % self.args.timeout)
                break
            names = self.run_round(names)
        return dict(kind='run', wall=round(time.monotonic() - began, 3),
                    test_timeout=self.args.test_timeout, rounds=self.rounds,
                    startup_secs=round(self.startup, 3),
                    problems=self.problems)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--suite', required=True,
                    help='directory of the unpacked test package')
    ap.add_argument('--log', required=True)
    ap.add_argument('--results', required=True)
    ap.add_argument('--softmlx5', help='run the tests under `PATH run --`')
    ap.add_argument('--python', default='/usr/bin/python3')
    ap.add_argument('--test-timeout', type=int, default=60)
    ap.add_argument('--timeout', type=int, default=1200)
    ap.add_argument('names', nargs='+')
    args = ap.parse_args(argv)
    if args.test_timeout <= 0 or args.timeout <= 0:
        ap.error('timeouts must be positive')

    with open(args.log, 'ab') as log:
        dog = Watchdog(args, log, sys.stdout)
        run = dog.run(list(args.names))
    with open(args.results, 'w') as f:
        for rec in dog.records + [run]:
            f.write(json.dumps(rec) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
