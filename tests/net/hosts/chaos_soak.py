#!/usr/bin/env python3
"""Chaos soak on the namespace hosts (netns.py): the training of
training.py runs on a ps and two workers for --seconds of training while
a driver, every 5-15 s, SIGKILLs a random task and starts it again at its
address, or (one time in three) pulls its cable for 1-4 s. Each fault
waits for training to move past the previous one. At the end the training
must have finished, its variables must equal, bit for bit, a fault-free
run in one process (--threads 1) of the steps that took effect, and no
process or namespace may be left. Prints the faults injected and
survived. CTest runs `--seconds 30 --min-faults 2` (tests/CMakeLists.txt);
`--seconds 120 --min-faults 10` is the two-minute soak. Faults come
sooner (but never under 5 s apart) when those still needed for
--min-faults would not fit into the training left at its pace so far.
Needs root and iproute2 (SKIPPED, exit 77, otherwise).

usage: chaos_soak.py TFG_BINARY [--seconds S] [--seed N] [--min-faults N]
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402
import netns  # noqa: E402
import training  # noqa: E402

HEARTBEAT = 0.5
TASKS = (("ps", "ps"), ("w0", "worker"), ("w1", "worker"))


def steps_per_second(tfg, net, tmp, script):
    """Fault-free training speed on this cluster (the soak's step count is
    sized from it)."""
    ckpt = os.path.join(tmp, "calibration")
    master = cluster.start_master(tfg, net, script, [400, ckpt], "--heartbeat", str(HEARTBEAT))
    # Timed from the 50th step on: connecting and registering are not steps.
    wait_for_progress(master, ckpt, 49, cluster.DEADLINE)
    start = time.monotonic()
    rc, _, err = cluster.finish(master)
    if rc != 0:
        raise AssertionError("the calibration run failed:\n" + err)
    shutil.rmtree(ckpt)
    return 350 / (time.monotonic() - start)


class Chaos:
    def __init__(self, tfg, net, rng, log):
        self.tfg, self.net, self.rng, self.log = tfg, net, rng, log
        self.tasks = {name: cluster.start_worker(tfg, net[name]) for name, _ in TASKS}
        self.kills = self.partitions = 0

    def kill_and_restart(self, name):
        self.tasks[name].kill()
        time.sleep(self.rng.uniform(0.2, 2.0))
        self.tasks[name] = cluster.start_worker(self.tfg, self.net[name])
        self.kills += 1

    def partition(self, name):
        seconds = self.rng.uniform(1.0, 4.0)
        self.net.unplug(self.net[name])
        time.sleep(seconds)
        self.net.plug(self.net[name])
        self.partitions += 1
        return seconds

    def inject(self):
        name = self.rng.choice([n for n, _ in TASKS])
        if self.rng.random() < 1 / 3:
            self.log("partition of %s for %.1f s" % (name, self.partition(name)))
        else:
            self.kill_and_restart(name)
            self.log("SIGKILL and restart of %s" % name)

    def injected(self):
        return self.kills + self.partitions


def wait_for_progress(master, ckpt, after_step, timeout):
    """Until a checkpoint newer than `after_step` exists (training moved on
    since the fault); False when the master ended or time ran out."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and master.alive():
        if training.newest_checkpoint(ckpt) > after_step:
            return True
        time.sleep(0.05)
    return False


class Pace:
    """The training's steps a second over the last 15 s, from its
    checkpoints (a shared machine's load, and so the pace, changes)."""

    def __init__(self, ckpt):
        self.ckpt = ckpt
        self.samples = []  # (monotonic time, newest checkpoint)

    def seconds_left(self, steps):
        now, done = time.monotonic(), training.newest_checkpoint(self.ckpt)
        self.samples.append((now, done))
        while now - self.samples[0][0] > 15:
            self.samples.pop(0)
        then, before = self.samples[0]
        if now - then < 2 or done - before <= 0:
            return None
        return (steps - done) / ((done - before) / (now - then))


def hurry(pace, steps, faults_needed):
    """Whether the faults still needed would not fit, 5 s apart plus about
    3 s of recovery each, into the training left at its recent pace (the
    calibration on a loaded machine can be far off): then the next one
    comes after the shortest pause, 5 s."""
    left = pace.seconds_left(steps)
    return faults_needed > 0 and left is not None and left < 8 * faults_needed


def soak(tfg, seconds, seed, min_faults):
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="tfg_soak_")
    started = time.monotonic()
    log = lambda line: print("  [%6.1f s] %s" % (time.monotonic() - started, line), file=sys.stderr, flush=True)
    try:
        with netns.Network(cluster.HOSTS) as net:
            script = training.write_script(os.path.join(tmp, "train.tfg"))
            chaos = Chaos(tfg, net, rng, log)
            rate = steps_per_second(tfg, net, tmp, script)
            # Half as much again: the calibration's few seconds on a shared
            # machine may underrate the pace to come, and the soak trains
            # for at least --seconds.
            steps = max(200, int(rate * seconds * 1.5))
            log("%.0f steps a second fault-free: training %d steps, faults every 5-15 s (seed %d)" %
                (rate, steps, seed))
            ckpt = os.path.join(tmp, "ckpt")
            master = cluster.start_master(tfg, net, script, [steps, ckpt], "--heartbeat", str(HEARTBEAT))
            training_started = time.monotonic()
            pace = Pace(ckpt)
            survived = 0
            while master.alive():
                pause_start = time.monotonic()
                pause_end = pause_start + rng.uniform(5, 15)
                while master.alive() and time.monotonic() < pause_end:
                    needed = min_faults - chaos.injected()
                    if hurry(pace, steps, needed) and time.monotonic() >= pause_start + 5:
                        break
                    time.sleep(0.05)
                over = time.monotonic() - training_started >= seconds and chaos.injected() >= min_faults
                if not master.alive() or over:
                    break
                chaos.inject()
                # Progress counts from the fault's end: a partition lets a
                # few steps finish before training stalls.
                at = training.newest_checkpoint(ckpt)
                if wait_for_progress(master, ckpt, at, 120):
                    survived += 1
                elif master.alive():
                    raise AssertionError("no progress for 120 s after a fault:\n" + master.err.text())
            rc, out, err = cluster.finish(master)
            trained = time.monotonic() - training_started
            recoveries = err.count(" is back after ")
            lost = training.lost_steps(err)
            if rc != 0:
                logs = "".join("\n--- %s:\n%s" % (n, t.err.text()[-3000:]) for n, t in chaos.tasks.items())
                raise AssertionError("the training failed after %d faults:\n%s%s" % (chaos.injected(), err, logs))
            expected = training.local_run(tfg, tmp, steps - lost)
            if out.strip() != expected.strip():
                raise AssertionError("the variables differ from a fault-free run of %d steps:\n%s\nexpected:\n%s" %
                                     (steps - lost, out, expected))
            net.close()
            left = net.leftovers()
            if left:
                raise AssertionError("left behind: %s" % ", ".join(left))
            print("chaos soak: %.0f s of training, %d steps (%d lost to faults); faults injected %d (%d SIGKILL + "
                  "restart, %d partitions), survived %d, recoveries %d; final variables equal the fault-free run's; "
                  "no process or namespace left" % (trained, steps, lost, chaos.injected(), chaos.kills,
                                                   chaos.partitions, survived, recoveries))
            if chaos.injected() < min_faults:
                raise AssertionError("only %d faults injected, fewer than %d" % (chaos.injected(), min_faults))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tfg")
    parser.add_argument("--seconds", type=float, default=35, help="seconds of training under faults (120: the soak)")
    parser.add_argument("--seed", type=int, default=None, help="the driver's random choices (default: the time)")
    parser.add_argument("--min-faults", type=int, default=2, help="keep injecting until this many faults")
    a = parser.parse_args()
    why = netns.available()
    if why is not None:
        print("SKIPPED: network namespaces cannot be made here: %s" % why)
        return 77
    seed = a.seed if a.seed is not None else int(time.time())
    try:
        soak(os.path.abspath(a.tfg), a.seconds, seed, a.min_faults)
    except AssertionError as e:
        print("FAILED (seed %d): %s" % (seed, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
