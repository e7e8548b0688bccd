// Command cmp runs a command and `wc -l FILE` in turn, interleaved, and
// prints the medians of their wall time and CPU time (user + system, from
// the kernel's accounting of each child, in microseconds), the ratios, and
// the command's peak resident memory (ru_maxrss, what GNU time -v reports
// as "Maximum resident set size") as a multiple of FILE's size.
//
//	go run ./bench/cmp -runs 5 -name 'x12 get' -file BIG -- assay x12 get BIG 'ST(N)02'
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

type sample struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

func run(args []string) (sample, error) {
	cmd := exec.Command(args[0], args[1:]...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %w", args, err)
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, maxRSS: ru.Maxrss * 1024}, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func main() {
	runs := flag.Int("runs", 5, "runs of each command")
	name := flag.String("name", "", "what to call the command in the output")
	file := flag.String("file", "", "the input, for wc -l and the size")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || *file == "" {
		flag.Usage()
		os.Exit(2)
	}
	fi, err := os.Stat(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if data, err := os.ReadFile(*file); err == nil { // warm the page cache
		_ = data
	}
	var cw, cc, ww, wc []time.Duration
	var peak int64
	for range *runs {
		c, err := run(args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w, err := run([]string{"wc", "-l", *file})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cw, cc = append(cw, c.wall), append(cc, c.cpu)
		ww, wc = append(ww, w.wall), append(wc, w.cpu)
		peak = max(peak, c.maxRSS)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	fmt.Printf("%-24s wall %6.1f ms (wc -l %5.1f ms) %5.2fx   cpu %6.1f ms (wc -l %5.1f ms) %5.2fx   peak RSS %5.1f MiB = %.2fx input\n",
		*name, ms(median(cw)), ms(median(ww)), float64(median(cw))/float64(median(ww)),
		ms(median(cc)), ms(median(wc)), float64(median(cc))/float64(max(median(wc), time.Microsecond)),
		float64(peak)/(1<<20), float64(peak)/float64(fi.Size()))
}
