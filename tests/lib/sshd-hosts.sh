# SPDX-License-Identifier: Apache-2.0
# sshd-hosts.sh: two (or more) test hosts, each its own sshd, in its own
# network namespace (joined by a veth pair) and with its own host name
# when the tests run as root, on loopback ports otherwise; for the tests
# that reach other hosts over real OpenSSH (replicate push, replicate
# audit). Sourced after lib.sh; skips the test when OpenSSH is missing.
# Sets T (the trash), tag, net, isolated; defines start_host and
# stop_hosts, and stops the hosts when the test exits. The client's
# configuration is $T/ssh_config, its key $T/client (made by the setup:
# ssh_hosts_setup). A session there finds the shipped data where the
# sources keep it, as a host's installed tools find theirs.
SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] || test_skip_all "sshd is not installed (Debian package openssh-server)"
command -v ssh >/dev/null || test_skip_all "ssh is not installed (Debian package openssh-client)"

T=$trash
tag=$$
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && ip netns list >/dev/null 2>&1; then
	isolated=1
else
	isolated=0
fi
# 10.$net.{1,2}.0/24: one subnet per host, none another test running
# beside this one uses
net=$((100 + $$ % 150))
while [ $isolated = 1 ] && ip -o addr 2>/dev/null | grep -q " 10\.$net\."; do
	net=$((100 + (net - 99) % 150))
done

# start_host NAME N: an sshd for host NAME (N = 1, 2), with its address.
start_host () {
	name=$1 n=$2
	if [ $isolated = 1 ]; then
		ns=ev$tag$n
		addr=10.$net.$n.2 port=22
		ip netns add $ns &&
		ip link add ev${tag}h$n type veth peer name ev${tag}n$n &&
		ip link set ev${tag}n$n netns $ns &&
		ip addr add 10.$net.$n.1/24 dev ev${tag}h$n && ip link set ev${tag}h$n up &&
		ip netns exec $ns ip addr add $addr/24 dev ev${tag}n$n &&
		ip netns exec $ns ip link set ev${tag}n$n up && ip netns exec $ns ip link set lo up || return 1
	else
		addr=127.0.0.1 port=$(free_port)
	fi
	ssh-keygen -q -t ed25519 -N "" -f "$T/$name.hostkey" &&
	cat >"$T/$name.sshd_config" <<-CFG &&
	ListenAddress $addr:$port
	HostKey $T/$name.hostkey
	PidFile $T/$name.pid
	AuthorizedKeysFile $T/authorized_keys
	StrictModes no
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	PermitRootLogin prohibit-password
	LogLevel ERROR
	SetEnv EVIDENCE_DATADIR=$EV_SRCDIR/share
	CFG
	echo "$name $(cut -d" " -f1,2 "$T/$name.hostkey.pub")" >>"$T/known_hosts" &&
	cat >>"$T/ssh_config" <<-CFG &&
	Host $name
	  HostName $addr
	  Port $port
	  User $(id -un)
	  IdentityFile $T/client
	  IdentitiesOnly yes
	  HostKeyAlias $name
	  UserKnownHostsFile $T/known_hosts
	  StrictHostKeyChecking yes
	  LogLevel ERROR
	CFG
	if [ $isolated = 1 ]; then
		mkdir -p /run/sshd &&
		ip netns exec ev$tag$n unshare --uts sh -c "hostname $name && exec $SSHD -D -e -f $T/$name.sshd_config" \
			>"$T/$name.log" 2>&1 &
	else
		"$SSHD" -D -e -f "$T/$name.sshd_config" >"$T/$name.log" 2>&1 &
	fi
	# Up when a command runs through it.
	for i in $(seq 1 100); do
		ssh -F "$T/ssh_config" -o BatchMode=yes -o ConnectTimeout=2 $name true 2>/dev/null && return 0
		sleep 0.1
	done
	echo "sshd for $name did not come up:" >&2
	cat "$T/$name.log" >&2
	return 1
}

stop_hosts () {
	for n in 1 2; do
		for f in "$T"/host*.pid; do
			[ -f "$f" ] && kill -CONT "$(cat "$f")" 2>/dev/null && kill "$(cat "$f")" 2>/dev/null
		done
		if [ $isolated = 1 ]; then
			ip netns del ev$tag$n 2>/dev/null
			ip link del ev${tag}h$n 2>/dev/null
		fi
	done
	return 0
}
trap stop_hosts EXIT

# ssh_hosts_setup: a client key, hosts hostA and hostB, and hostC where
# nothing listens.
ssh_hosts_setup () {
	ssh-keygen -q -t ed25519 -N "" -f "$T/client" && cp "$T/client.pub" "$T/authorized_keys" &&
	: >"$T/ssh_config" && : >"$T/known_hosts" &&
	start_host hostA 1 && start_host hostB 2 &&
	cat >>"$T/ssh_config" <<-CFG
	Host hostC
	  HostName 127.0.0.1
	  Port 1
	CFG
}
