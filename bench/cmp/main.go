//go:build unix

// Command cmp runs a command and a reference command in turn, interleaved,
// and prints the medians of their wall time and CPU time (user + system,
// from the kernel's accounting of each child, in microseconds), the ratios
// (and on a second line the same for the fastest run of each),
// and the command's peak resident memory (ru_maxrss, what GNU time -v
// reports as "Maximum resident set size"), as a multiple of FILE's size
// when there is a FILE. It reads the kernel's rusage of each child, so it
// builds on Unix only, as bench/run.sh runs there.
//
// The reference is `wc -l FILE` unless -ref names a program (run with no
// arguments, such as a Go hello-world):
//
//	go run ./bench/cmp -runs 5 -name 'x12 get' -file BIG -- assay x12 get BIG 'ST(N)02'
//	go run ./bench/cmp -runs 101 -name eval -ref /tmp/hello -- assay eval --criteria C --sandbox S
//
// A command that exits 1 (a verdict that is not a pass) is a normal run;
// any other failure stops the comparison.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			return sample{}, fmt.Errorf("%v: %w", args, err)
		}
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, maxRSS: maxRSS(ru)}, nil
}

// maxRSS returns the peak resident memory of ru in bytes: getrusage(2)
// gives it in kilobytes, but in bytes on Darwin.
func maxRSS(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
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
	ref := flag.String("ref", "", "the reference program (default: wc -l FILE)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || (*file == "" && *ref == "") {
		flag.Usage()
		os.Exit(2)
	}
	refArgs, refName := []string{*ref}, filepath.Base(*ref)
	var size int64
	if *file != "" {
		fi, err := os.Stat(*file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		size = fi.Size()
		if data, err := os.ReadFile(*file); err == nil { // warm the page cache
			_ = data
		}
	}
	if *ref == "" {
		refArgs, refName = []string{"wc", "-l", *file}, "wc -l"
	}
	var cw, cc, ww, wc []time.Duration
	var peak int64
	for range *runs {
		c, err := run(args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w, err := run(refArgs)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cw, cc = append(cw, c.wall), append(cc, c.cpu)
		ww, wc = append(ww, w.wall), append(wc, w.cpu)
		peak = max(peak, c.maxRSS)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	memory := fmt.Sprintf("peak RSS %5.1f MiB", float64(peak)/(1<<20))
	if size > 0 {
		memory += fmt.Sprintf(" = %.2fx input", float64(peak)/float64(size))
	}
	ratio := func(a, b time.Duration) float64 { return float64(a) / float64(max(b, time.Microsecond)) }
	fmt.Printf("%-24s wall %6.1f ms (%s %5.1f ms) %5.2fx   cpu %6.1f ms (%s %5.1f ms) %5.2fx   %s\n",
		*name, ms(median(cw)), refName, ms(median(ww)), ratio(median(cw), median(ww)),
		ms(median(cc)), refName, ms(median(wc)), ratio(median(cc), median(wc)),
		memory)
	// On a shared machine the median moves with the neighbours' load; the
	// fastest run of each is what the programs cost when left alone.
	fmt.Printf("%-24s fastest: wall %6.1f ms (%s %5.1f ms) %5.2fx   cpu %6.1f ms (%s %5.1f ms) %5.2fx\n",
		"", ms(slices.Min(cw)), refName, ms(slices.Min(ww)), ratio(slices.Min(cw), slices.Min(ww)),
		ms(slices.Min(cc)), refName, ms(slices.Min(wc)), ratio(slices.Min(cc), slices.Min(wc)))
}
