#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for testing `tamarin grade --slurm`.
#
# Usage: scripts/slurm/cluster.sh start|stop|status|env
#   start   install slurm-wlm and munge if slurmctld is missing (apt-get, as root), start
#           munged, slurmctld and slurmd, and wait until the node is idle
#   stop    cancel this cluster's jobs and stop the daemons that start started (idempotent)
#   status  sinfo and squeue
#   env     print `export SLURM_CONF=...`: eval "$(scripts/slurm/cluster.sh env)"
#
# Everything lives in ${TAMARIN_SLURM_DIR:-/tmp/tamarin-slurm}: slurm.conf, logs, state,
# spool, pid files and munged's socket. Nothing of the system's is touched but the
# packages and the munge key (/etc/munge/munge.key, created only when absent).
# Ports: ${TAMARIN_SLURM_PORT:-16817} for slurmctld and the next one for slurmd, away
# from a system cluster's 6817/6818.
#
# Exit status of start: 0 when the node is idle; 77 when the cluster cannot be had here
# (the packages cannot be installed, not root), with one line saying why; 1 when the
# daemons fail, after the tail of their logs.
#
# Things to know about Slurm here (22.05 on Debian 12):
# - No cgroups: proctrack/linuxproc and task/none, so --mem is a scheduling request
#   (cons_tres with CR_Core_Memory counts it against RealMemory) and is not enforced.
# - With CR_Core_Memory a job that asks no --mem gets DefMemPerCPU per CPU; without
#   DefMemPerCPU it would get the whole node's memory and jobs would run one at a time.
# - `scontrol requeue` needs the job to be requeueable: JobRequeue=1 here (or sbatch
#   --requeue). The job is killed (SIGTERM, SIGKILL KillWait seconds later), shows
#   COMPLETING for a moment, then PENDING with reason BeginTime: a requeued batch job may
#   not start before the credential lifetime has passed (AuthInfo cred_expire, 120 s by
#   default; the begin time is the requeue's time plus 121 s). `scontrol release` does
#   not shorten it (the job is not held); `scontrol update jobid=ID starttime=now` does,
#   the job starting about a second later, but only once the job is PENDING: an update
#   while it is COMPLETING is overwritten.
# - A requeued job's output file is truncated when it starts again, unless the job was
#   submitted with --open-mode=append (or JobFileAppend=1, not set here so that a job
#   script that relies on it is caught). SLURM_RESTART_COUNT is unset in a job's first
#   run and 1, 2, ... in its restarts.
# - A job whose dependency is met (afterany) starts at the next scheduling pass, a few
#   seconds after the last job it waits for has ended.
# - slurmctld and slurmd log errors about mpi/pmix (no PMIx library); they are harmless.
# - start clears the saved state (StateSaveLocation, SlurmdSpoolDir): job ids start again
#   at 1 and no job of an earlier start comes back.
set -euo pipefail

dir=${TAMARIN_SLURM_DIR:-/tmp/tamarin-slurm}
port=${TAMARIN_SLURM_PORT:-16817}
conf=$dir/slurm.conf
munge_dir=$dir/munge
socket=$munge_dir/munge.socket.2
key=/etc/munge/munge.key
export SLURM_CONF=$conf

say() { echo "slurm: $*" >&2; }
skip() {
    echo "slurm: $*; skipping" >&2
    exit 77
}

# The pid in FILE when that process is alive and runs the program NAME.
live_pid() {
    local file=$1 name=$2 pid
    [[ -f $file ]] || return 1
    pid=$(cat "$file" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]] || return 1
    echo "$pid"
}

node_name() { hostname -s 2>/dev/null || hostname; }

install_packages() {
    local missing=0 c
    for c in slurmctld slurmd munged sbatch sinfo squeue scontrol; do
        command -v "$c" >/dev/null 2>&1 || missing=1
    done
    [[ $missing == 0 ]] && return 0
    command -v apt-get >/dev/null 2>&1 || skip "cannot install slurm-wlm (no apt-get)"
    say "installing slurm-wlm and munge"
    if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        slurm-wlm munge; } >"$dir/apt.log" 2>&1; then
        local why
        why=$(grep -E '^(E|W): ' "$dir/apt.log" | tail -n 1 || true)
        skip "cannot install slurm-wlm (apt-get failed${why:+: $why}; log in $dir/apt.log)"
    fi
    for c in slurmctld slurmd munged sbatch sinfo squeue scontrol; do
        command -v "$c" >/dev/null 2>&1 || skip "slurm-wlm installed but $c is missing"
    done
}

start_munge() {
    if live_pid "$munge_dir/munged.pid" munged >/dev/null; then
        return 0
    fi
    if [[ ! -s $key ]]; then
        mkdir -p /etc/munge
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile="$key"
        else
            dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
        fi
        chown munge:munge "$key" 2>/dev/null || true
        chmod 400 "$key"
    fi
    # munged runs as the key's owner (munge); it wants its socket's folder to be
    # searchable by all and writable by it alone.
    local owner
    owner=$(stat -c %U "$key")
    mkdir -p "$munge_dir"
    chown "$owner" "$munge_dir"
    chmod 755 "$munge_dir"
    rm -f "$socket" "$socket.lock"
    local args=(--socket="$socket" --pid-file="$munge_dir/munged.pid"
        --log-file="$munge_dir/munged.log" --seed-file="$munge_dir/munged.seed" --key-file="$key")
    local ok=0
    if [[ $owner == root ]]; then
        munged "${args[@]}" && ok=1
    else
        runuser -u "$owner" -- munged "${args[@]}" && ok=1
    fi
    if [[ $ok == 0 ]] || ! munge -n -S "$socket" </dev/null | unmunge -S "$socket" >/dev/null 2>&1; then
        broken "munged did not start"
    fi
}

write_conf() {
    local node cpus mem_kb mem topo line
    node=$(node_name)
    cpus=$(nproc)
    mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
    # A bit under the machine's memory: slurmd drains a node that has less than
    # RealMemory, and the daemons need some too.
    mem=$((mem_kb * 9 / 10 / 1024))
    # The topology slurmd sees, when it agrees with nproc; CPUs alone otherwise.
    topo="CPUs=$cpus"
    line=$(slurmd -C 2>/dev/null | head -n 1 || true)
    if [[ $line =~ CPUs=([0-9]+)\ Boards=([0-9]+)\ SocketsPerBoard=([0-9]+)\ CoresPerSocket=([0-9]+)\ ThreadsPerCore=([0-9]+) ]] &&
        [[ ${BASH_REMATCH[1]} == "$cpus" ]]; then
        topo="CPUs=$cpus Boards=${BASH_REMATCH[2]} SocketsPerBoard=${BASH_REMATCH[3]} CoresPerSocket=${BASH_REMATCH[4]} ThreadsPerCore=${BASH_REMATCH[5]}"
    fi
    cat >"$conf" <<EOF
# Written by scripts/slurm/cluster.sh: a single-node cluster for tests.
ClusterName=tamarin
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
JobRequeue=1
MinJobAge=60
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 $topo RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    : >"$dir/plugstack.conf"
}

show_logs() {
    local f
    for f in "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$munge_dir/munged.log"; do
        [[ -f $f ]] || continue
        echo "--- tail of $f" >&2
        tail -n 25 "$f" >&2
    done
}

# Shows the daemons' logs, stops what start started and exits 1.
broken() {
    say "$*"
    show_logs
    stop >/dev/null 2>&1 || true
    exit 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

node_state() { sinfo -h -N -n "$(node_name)" -o %T 2>/dev/null | head -n 1 || true; }

start() {
    [[ $(id -u) == 0 ]] || skip "the local cluster runs its daemons as root, and this is $(id -un)"
    mkdir -p "$dir"
    install_packages
    mkdir -p "$dir/log" "$dir/state" "$dir/spool"
    local ctld_pid slurmd_pid p
    ctld_pid=$(live_pid "$dir/slurmctld.pid" slurmctld || true)
    slurmd_pid=$(live_pid "$dir/slurmd.pid" slurmd || true)
    if [[ -z $ctld_pid && -z $slurmd_pid ]]; then
        for p in "$port" $((port + 1)); do
            if port_in_use "$p"; then
                say "port $p is in use by another program; choose other ports with TAMARIN_SLURM_PORT"
                exit 1
            fi
        done
    fi
    start_munge
    if [[ -z $ctld_pid ]]; then
        write_conf
        # A fresh cluster: no job or node state of an earlier start comes back.
        if [[ -z $slurmd_pid ]]; then
            rm -rf "${dir:?}/state" "${dir:?}/spool"
            mkdir -p "$dir/state" "$dir/spool"
        fi
        slurmctld -i >>"$dir/log/slurmctld.out" 2>&1 ||
            broken "slurmctld did not start: $(tail -n 1 "$dir/log/slurmctld.out")"
    fi
    if [[ -z $slurmd_pid ]]; then
        slurmd -N "$(node_name)" >>"$dir/log/slurmd.out" 2>&1 ||
            broken "slurmd did not start: $(tail -n 1 "$dir/log/slurmd.out")"
    fi
    local limit=${TAMARIN_SLURM_START_TIMEOUT:-60} state=
    local deadline=$((SECONDS + limit))
    while ((SECONDS < deadline)); do
        live_pid "$dir/slurmctld.pid" slurmctld >/dev/null || broken "slurmctld exited"
        live_pid "$dir/slurmd.pid" slurmd >/dev/null || broken "slurmd exited"
        state=$(node_state)
        case $state in
        idle | mixed | allocated | completing)
            echo "slurm: node $(node_name) $state (SLURM_CONF=$conf)"
            return 0
            ;;
        esac
        sleep 0.5
    done
    sinfo -N -l >&2 || true
    scontrol show node "$(node_name)" >&2 || true
    broken "node $(node_name) is not idle after $limit s (state: ${state:-unknown})"
}

stop_daemon() {
    local file=$1 name=$2 pid i
    pid=$(live_pid "$file" "$name") || {
        rm -f "$file"
        return 0
    }
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        [[ -d /proc/$pid ]] || break
        sleep 0.1
    done
    if [[ -d /proc/$pid ]]; then
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.2
    fi
    rm -f "$file"
}

stop() {
    if live_pid "$dir/slurmctld.pid" slurmctld >/dev/null; then
        # The jobs first, so that no job's processes outlive the cluster.
        local jobs i
        jobs=$(squeue -h -o %A 2>/dev/null || true)
        if [[ -n $jobs ]]; then
            # shellcheck disable=SC2086 # one argument per job id
            scancel $jobs 2>/dev/null || true
            for ((i = 0; i < 50; i++)); do
                [[ -z $(squeue -h -t running,completing -o %A 2>/dev/null) ]] && break
                sleep 0.2
            done
        fi
    fi
    stop_daemon "$dir/slurmd.pid" slurmd
    stop_daemon "$dir/slurmctld.pid" slurmctld
    stop_daemon "$munge_dir/munged.pid" munged
    rm -f "$socket" "$socket.lock"
    echo "slurm: stopped"
}

status() {
    if ! live_pid "$dir/slurmctld.pid" slurmctld >/dev/null; then
        echo "slurm: not running (SLURM_CONF=$conf)"
        return 3
    fi
    sinfo
    squeue
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) status ;;
env) echo "export SLURM_CONF=$conf" ;;
*)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
