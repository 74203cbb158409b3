# A command client for the tests and the overhead figure: it makes no HTTP request at all, and answers each
# batch as its argument says, correctly ("instant": every request "1 200 0", the protocol's cost alone; 1 ns,
# since a request of 0 ns is refused) or with one of the faults httpbench must survive, timings that do not
# fit the batch's wall time among them. Usage: python3 scripted.py BEHAVIOUR
import os
import sys
import time

behaviour = sys.argv[1]
if behaviour == "exit-at-start":
    print("cannot start: no such library", file=sys.stderr)
    sys.exit(4)

batches = 0
for line in sys.stdin:
    n = int(line)
    if n == 0:  # httpbench's first, empty batch: start-up is done
        sys.stdout.write("version scripted 1.0\nend\n")
        sys.stdout.flush()
        continue
    batches += 1
    ok = "1 200 0\n"
    if behaviour == "instant":
        sys.stdout.write(ok * n + "end\n")
    elif behaviour == "garbage":
        sys.stdout.write(ok * (n // 2) + "oops, not a line\n")
    elif behaviour == "fewer":
        sys.stdout.write(ok * (n - 1) + "end\n")
    elif behaviour == "more":
        sys.stdout.write(ok * (n + 1) + "end\n")
    elif behaviour == "crash":
        sys.stdout.write(ok * 3)
        sys.stdout.flush()
        print("segfault (pretend)", file=sys.stderr)
        sys.stderr.flush()
        os._exit(139)
    elif behaviour == "hang":
        sys.stdout.write(ok * 2)
        sys.stdout.flush()
        time.sleep(600)
    elif behaviour == "zero":  # no request takes 0 ns
        sys.stdout.write("0 200 0\n" * n + "end\n")
    elif behaviour == "ten-seconds":  # 10 s per request, answered at once
        sys.stdout.write(ok * 2 + "10000000000 200 0\n" * (n - 2) + "end\n")
    elif behaviour == "ages":  # 584 years: the largest count of nanoseconds the protocol reads
        sys.stdout.write("18446744073709551615 200 0\n" * n + "end\n")
    elif behaviour == "late-version":
        sys.stdout.write(ok + "version too late\n")
    else:
        sys.exit(f"unknown behaviour {behaviour}")
    sys.stdout.flush()
