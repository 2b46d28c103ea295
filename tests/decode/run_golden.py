#!/usr/bin/python3
# Runs `softmlx5 decode` on every case of golden.txt (format: its opening
# comment) and compares the line field by field with the expected one.
#   run_golden.py SOFTMLX5 GOLDEN
import subprocess
import sys


def cases(path):
    case, key = None, None
    for raw in open(path):
        line = raw.rstrip('\n')
        if line.startswith('#'):
            continue
        if not line.strip():
            if case:
                yield case
            case, key = None, None
            continue
        if line.startswith(' ') and key:
            case[key] += ' ' + line.strip()
            continue
        key, _, val = line.partition(':')
        case = case or {}
        case[key] = val.strip()
    if case:
        yield case


def fields(s):
    # "kind a=1 b=2 | seg c=3": one (segment, field) per token
    out, seg = [], ''
    for part in s.split(' | '):
        toks = part.split(' ')
        seg = toks[0] if '=' not in toks[0] else seg
        out += [(seg, t) for t in toks]
    return out


def main():
    smx, golden = sys.argv[1], sys.argv[2]
    passed = failed = 0
    for c in cases(golden):
        args = [smx, 'decode'] + c['args'].split()
        stdin = c.get('hex', '')
        if 'hexarg' in c:
            args += c['hexarg'].split()
            stdin = ''
        if 'hexrepeat' in c:
            tok, n = c['hexrepeat'].split()
            stdin = (tok + ' ') * int(n)
        p = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=30)
        got = p.stdout.rstrip('\n')
        errs = []
        if 'expect' in c or 'expect_prefix' in c:
            if p.returncode != 0:
                errs.append('exit %d, stderr %r' % (p.returncode, p.stderr))
            elif 'expect' in c:
                want, have = fields(c['expect']), fields(got)
                for i in range(max(len(want), len(have))):
                    w = want[i] if i < len(want) else None
                    h = have[i] if i < len(have) else None
                    if w != h:
                        errs.append('field %d: want %s, got %s' % (i, w, h))
                        break
            elif not got.startswith(c['expect_prefix']):
                errs.append('want a line starting %r' % c['expect_prefix'])
        else:
            if p.returncode != int(c['rc']):
                errs.append('exit %d, want %s' % (p.returncode, c['rc']))
            if c['stderr'] not in p.stderr:
                errs.append('stderr %r lacks %r' % (p.stderr, c['stderr']))
            if got:
                errs.append('stdout should be empty, got %r' % got)
        if errs:
            failed += 1
            print('FAIL %s\n  got:  %s\n  %s' % (c['name'], got, '\n  '.join(errs)))
        else:
            passed += 1
            print('ok   %s' % c['name'])
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed or not passed else 0


sys.exit(main())
