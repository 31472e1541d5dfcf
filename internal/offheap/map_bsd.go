//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package offheap

const mapNoReserve = 0

func adviseHuge([]byte) {}
