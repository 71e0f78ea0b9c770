#!/usr/bin/env bash
# A [topology] job of verbs ranks through a real MPI job (issue 29 part 7): `mpirun -np 3`, each
# rank on a fake ConnectX of its own process, making requesters for its flows and responders
# for the flows destined to it and connecting them through the job's exchange. The fake carries
# no data between processes (its QP numbers are each rank's own), so the run must end saying
# nothing was received and why — not with an exchange error, and not with figures of flows
# that landed on the wrong QP. The data path is VerbsFabricJob.* (one process).
#
# usage: fabric_verbs_fake_test.sh QOSBENCH SUITE.toml
# Exit: 0 pass, 1 fail, 77 skipped (no MPI, no verbs driver).
set -u
qosbench=${1:?usage: fabric_verbs_fake_test.sh QOSBENCH SUITE.toml}
suite=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpi_env.sh"
mpi_skip_unless_usable "$qosbench"
"$qosbench" drivers | grep -q "^verbs .*built\|^verbs .*available" || skip "the verbs driver is not built"
work=$(mktemp -d /tmp/qb-fabric-verbs.XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$work" && timeout 120 mpirun -np 3 "$qosbench" run "$suite" --driver verbs \
  --driver-option provider=fake --driver-option fake_timing=instant --quiet \
  --json "$work/job.json" >"$work/job.out" 2>&1)
rc=$?
cat "$work/job.out"
for rank in 0 1 2; do
  grep -q "rank $rank on .*: host $rank (sends and receives)" "$work/job.out" ||
    fail "rank 0 did not say rank $rank plays host $rank, sending and receiving"
done
grep -q "verbs: rank\|verbs: flow" "$work/job.out" && fail "the QP exchange failed"
grep -q "carries no data to another rank's" "$work/job.out" ||
  fail "the run does not say why nothing was received"
((rc == 3)) || fail "exited $rc, not 3 (nothing measured)"
echo PASS
