package main

import (
	"bytes"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// CPU accounting from /proc: the CPU seconds (utime+stime) of the processes
// that serve a request (the server under load, the PostgreSQL backends of
// the bench's database, the redis-server the bench uses), sampled before
// and after a load run. Divided by the requests of the run, that is the CPU
// a request costs each process.

// clkTck is the kernel's USER_HZ, which /proc/*/stat counts in (100 on
// Linux for every architecture Go supports here).
const clkTck = 100.0

// statCPU reads utime+stime, in seconds, from the text of /proc/PID/stat.
// The command name (field 2) is in parentheses and may hold spaces and
// parentheses itself, so the fields are counted from the last ')'.
func statCPU(stat []byte) (float64, bool) {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)  // utime (field 14)
	st, err2 := strconv.ParseUint(f[12], 10, 64) // stime (field 15)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return float64(u+st) / clkTck, true
}

// procCPU is a process's user and system CPU seconds (0 when it is gone).
func procCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	v, _ := statCPU(b)
	return v
}

// procTitle is a process's command line as ps shows it: PostgreSQL and
// Redis rewrite theirs ("postgres: 15/main: user db 127.0.0.1(5000) idle",
// "redis-server 127.0.0.1:6379").
func procTitle(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// pgBackendOf reports whether title is that of a PostgreSQL client backend
// connected to database db: "postgres: [cluster: ]user db host(port) state".
func pgBackendOf(title, db string) bool {
	rest, ok := strings.CutPrefix(title, "postgres: ")
	if !ok || db == "" {
		return false
	}
	f := strings.Fields(rest)
	if len(f) > 0 && strings.HasSuffix(f[0], ":") { // cluster_name
		f = f[1:]
	}
	return len(f) >= 3 && f[1] == db
}

// redisServerAt reports whether title is that of a redis-server listening
// on port ("redis-server 127.0.0.1:6379", "redis-server *:6379").
func redisServerAt(title, port string) bool {
	f := strings.Fields(title)
	return len(f) >= 2 && strings.HasSuffix(f[0], "redis-server") && strings.HasSuffix(f[1], ":"+port)
}

// redisPort is the port of a redis:// URL (6379 when it names none).
func redisPort(redisURL string) string {
	u, err := url.Parse(redisURL)
	if err != nil || u.Port() == "" {
		return "6379"
	}
	return u.Port()
}

// cpuMeter says which processes to count: by kind, the PIDs the harness
// started (svc-api, the baseline, haproxy), plus the "postgres" kind (the
// client backends of database) and the "redis" kind (the redis-server at
// redisPort).
type cpuMeter struct {
	pids      map[string][]int
	database  string
	redisPort string
}

// cpuSample is the CPU seconds used so far by each process of interest
// (by kind and PID) and by the machine.
type cpuSample struct {
	procs   map[string]map[int]float64
	machine float64
}

func (m cpuMeter) sample() cpuSample {
	s := cpuSample{procs: map[string]map[int]float64{"postgres": {}, "redis": {}}}
	for kind, pids := range m.pids {
		if s.procs[kind] == nil {
			s.procs[kind] = map[int]float64{}
		}
		for _, pid := range pids {
			s.procs[kind][pid] = procCPU(pid)
		}
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		switch strings.TrimSpace(string(comm)) {
		case "postgres":
			if pgBackendOf(procTitle(pid), m.database) {
				s.procs["postgres"][pid] = procCPU(pid)
			}
		case "redis-server":
			if redisServerAt(procTitle(pid), m.redisPort) {
				s.procs["redis"][pid] = procCPU(pid)
			}
		}
	}
	s.machine = machineCPU()
	return s
}

// machineCPU is the CPU seconds the machine has been busy (/proc/stat: all
// but idle and iowait; guest time is in user already).
func machineCPU() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	var sum float64
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 {
			continue
		}
		n, _ := strconv.ParseFloat(v, 64)
		sum += n / clkTck
	}
	return sum
}

// used returns the CPU seconds used between two samples by kind, and by
// the machine as "machine": a process that ended between them is not
// counted (its last figures are unknown), one that started counts from
// zero.
func used(before, after cpuSample) map[string]float64 {
	out := map[string]float64{}
	for kind, ps := range after.procs {
		for pid, v := range ps {
			d := v - before.procs[kind][pid]
			if d < 0 { // a new process reusing a PID
				d = v
			}
			out[kind] += d
		}
	}
	out["machine"] = after.machine - before.machine
	return out
}

// cpuCost is the CPU one request cost, in ms, by process, over one load run.
type cpuCost struct {
	Server   float64 `json:"server_ms"` // svc-api or the baseline
	Postgres float64 `json:"postgres_ms"`
	Redis    float64 `json:"redis_ms"`
	Total    float64 `json:"total_ms"`
	// MachineBusy is the share of all the machine's cores busy during the
	// run (wrk and everything else on the machine included), in percent.
	MachineBusy float64 `json:"machine_busy_percent"`
}

// perRequest divides the CPU used (by kind, "server" the measured server)
// over requests; el is the run's wall time in seconds.
func perRequest(u map[string]float64, requests int64, el float64) cpuCost {
	var c cpuCost
	if requests > 0 {
		k := 1000 / float64(requests)
		c.Server, c.Postgres, c.Redis = u["server"]*k, u["postgres"]*k, u["redis"]*k
		c.Total = c.Server + c.Postgres + c.Redis
	}
	if n := cpuCount(); n > 0 && el > 0 {
		c.MachineBusy = 100 * u["machine"] / el / float64(n)
	}
	return c
}
