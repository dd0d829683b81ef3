#!/bin/bash
# Simulated hosts for multi-node MPI runs: network namespaces on one machine.
#
#   netns.sh up   [-p PREFIX] [-n HOSTS] [-r RATE] [-d DELAY]   e.g. -r 10gbit -d 50us
#   netns.sh down [-p PREFIX]
#   netns.sh stats [-p PREFIX]          bytes sent on each host's link (tc -s)
#
# "up" makes HOSTS namespaces PREFIX-h0..h{N-1} ("hosts") and one namespace
# PREFIX-sw (the "switch": a Linux bridge).  Host i has one interface eth0,
# address 10.231.0.(10+i)/24, a veth whose other end is a port of the bridge.
# Every host's eth0 gets a netem qdisc: egress rate RATE and one-way delay
# DELAY (so a round trip between two hosts costs 2 x DELAY, and each
# direction of a link is limited to RATE).  Kernels without sch_netem
# (CONFIG_NET_SCH_NETEM unset, as on the machine of the README's numbers)
# get a tbf qdisc instead: the rate holds, the delay is not added.
# RATE "none": no qdisc at all.  Nothing in the root namespace is
# touched; "down" deletes the namespaces (which deletes their veths).
# Needs root and iproute2 (ip netns, tc with sch_netem).
set -euo pipefail
cmd=${1:-}; shift || true
PREFIX=cfmn; N=2; RATE=10gbit; DELAY=50us; SUBNET=10.231.0
while getopts "p:n:r:d:s:" o; do
  case $o in p) PREFIX=$OPTARG;; n) N=$OPTARG;; r) RATE=$OPTARG;;
             d) DELAY=$OPTARG;; s) SUBNET=$OPTARG;; *) exit 2;; esac
done
rate_bps() {  # 10gbit -> 10000000000
  local v=${1%%[a-zA-Z]*} u=${1##*[0-9]}
  case ${u,,} in gbit) echo $((v * 1000000000));; mbit) echo $((v * 1000000));;
                 kbit) echo $((v * 1000));; *) echo "$v";; esac
}
NOTE=netem
hosts() { ip netns list | awk '{print $1}' | grep -E "^${PREFIX}-h[0-9]+$" | sort -V || true; }
case $cmd in
up)
  if [[ -n $(hosts) ]] || ip netns list | grep -q "^$PREFIX-sw\b"; then
    echo "namespaces $PREFIX-* exist already (netns.sh down -p $PREFIX)" >&2; exit 1
  fi
  # A failure half-way removes what was made.
  trap '"$0" down -p "$PREFIX"' ERR
  ip netns add "$PREFIX-sw"
  ip -n "$PREFIX-sw" link set lo up
  ip -n "$PREFIX-sw" link add br0 type bridge
  ip -n "$PREFIX-sw" link set br0 up
  for ((i = 0; i < N; i++)); do
    h=$PREFIX-h$i
    ip netns add "$h"
    ip -n "$h" link set lo up
    # Create the pair inside the host namespace, move the peer to the switch.
    ip -n "$h" link add eth0 type veth peer name p$i
    ip -n "$h" link set p$i netns "$PREFIX-sw"
    ip -n "$PREFIX-sw" link set p$i master br0
    ip -n "$PREFIX-sw" link set p$i up
    ip -n "$h" addr add "$SUBNET.$((10 + i))/24" dev eth0
    ip -n "$h" link set eth0 up
    # Segmentation offload off: netem/tbf then see wire-sized packets.
    ip netns exec "$h" ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1 || true
    if [[ $RATE != none ]]; then
      if ! ip netns exec "$h" tc qdisc add dev eth0 root netem delay "$DELAY" rate "$RATE" limit 100000 2>/dev/null; then
        # No sch_netem in this kernel: a token bucket gives the rate, and
        # the delay is whatever veth + the scheduler add (measured, not set).
        # Burst = 1 ms at RATE (at least 64 KiB), so a 1000 Hz timer suffices.
        bps=$(rate_bps "$RATE")
        burst=$(( bps / 8 / 1000 )); (( burst < 65536 )) && burst=65536
        ip netns exec "$h" tc qdisc add dev eth0 root tbf rate "$RATE" burst "$burst" latency 20ms
        NOTE="tbf, no netem: delay $DELAY not applied"
      fi
    fi
  done
  # Wait for every link's carrier (UCX ignores an interface not yet "up").
  for ((i = 0; i < N; i++)); do
    for ((t = 0; t < 100; t++)); do
      [[ $(ip netns exec "$PREFIX-h$i" cat /sys/class/net/eth0/operstate) == up ]] && break
      sleep 0.1
    done
  done
  echo "up: $(hosts | tr '\n' ' ')(switch $PREFIX-sw; $RATE, $DELAY one way; $NOTE)"
  ;;
down)
  for h in $(hosts) "$PREFIX-sw"; do
    ip netns del "$h" 2>/dev/null || true
  done
  ;;
stats)
  for h in $(hosts); do
    ip netns exec "$h" tc -s qdisc show dev eth0 | awk -v h="$h" '/Sent/ {print h, $2, "bytes", $4, "pkt"; exit}'
  done
  ;;
hostfile)
  # One line per host: its name (the launcher maps it to the namespace).
  for h in $(hosts); do echo "${h#"$PREFIX"-}"; done
  ;;
*) sed -n '2,24p' "$0"; exit 2;;
esac
