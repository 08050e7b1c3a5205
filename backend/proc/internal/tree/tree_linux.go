//go:build linux

package tree

import (
	"bytes" // not strings: see doc.go
	"os"
	"strconv"
	"syscall"
)

// Proc identifies a process across pid reuse: its pid and start time.
type Proc struct {
	Pid   int
	start string
}

// stat returns the fields of /proc/pid/stat after the command name: state,
// ppid, pgrp, … (field 3 onwards of proc(5)).
func stat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	var out []string
	for _, f := range bytes.Fields(b[i+1:]) {
		out = append(out, string(f))
	}
	return out
}

// Running reports whether pid is a live process (not a zombie).
func Running(pid int) bool {
	f := stat(pid)
	return len(f) > 0 && f[0] != "Z"
}

// Descendants lists the live descendants of pid (children, grandchildren…)
// by their parent links. Browsers put their helpers in process groups of
// their own, which a group kill does not reach; these links do, while the
// parents live.
func Descendants(pid int) []Proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]Proc{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := stat(p)
		if len(f) < 20 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], Proc{Pid: p, start: f[19]})
	}
	var out []Proc
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c.Pid)
		}
	}
	return out
}

// Kill sends SIGKILL to each process that is still the same process (same
// start time) and still running.
func Kill(ps []Proc) {
	for _, p := range ps {
		f := stat(p.Pid)
		if len(f) < 20 || f[0] == "Z" || f[19] != p.start {
			continue
		}
		syscall.Kill(p.Pid, syscall.SIGKILL)
	}
}
