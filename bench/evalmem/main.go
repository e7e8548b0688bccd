// Command evalmem measures the peak memory of `assay eval --runs` against
// the number of runs: for each count it lays out that many run folders
// (symbolic links, rule 22, to one copy of the bundled prior-authorization
// rollout, so that disk use stays small while every run is read and judged
// in full), runs the assay binary over them, and prints the runs, the wall
// time, the runs judged per second and the peak resident memory
// (getrusage's ru_maxrss of the child).
//
// usage: go run ./bench/evalmem [-bin ASSAY] [-runs 1000,10000,100000] [-format jsonl]
//
// With no -bin it builds ./cmd/assay (CGO_ENABLED=0). The output goes to
// /dev/null: what is measured is the judging and writing, not a terminal.
//
// Measured on the project's 2-core machine, shared and loaded (so the rates
// vary from run to run; the memory does not):
//
//	$ go run ./bench/evalmem -runs 1000,10000,100000
//	    runs       wall     runs/s      peak RSS  format
//	    1000      2.07s        483      24.1 MiB  jsonl
//	   10000    27.403s        365      27.9 MiB  jsonl
//	  100000  8m11.736s        203      67.2 MiB  jsonl
//
// and at 10,000 runs 27.9 MiB in json, 29.1 MiB in html and 27.8 MiB in
// junit. Before eval --runs streamed, 4,000 runs needed 399 MB. What still
// grows with the runs is their names and, per criterion, the runs that
// failed it (the benchmark's failed_runs lists them all).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the assay binary (default: build ./cmd/assay)")
	counts := flag.String("runs", "1000,10000,100000", "comma-separated numbers of runs")
	format := flag.String("format", "jsonl", "the --format to write")
	extra := flag.String("args", "", "more arguments for assay eval, space-separated")
	flag.Parse()
	if err := run(*bin, *counts, *format, strings.Fields(*extra)); err != nil {
		fmt.Fprintln(os.Stderr, "evalmem:", err)
		os.Exit(1)
	}
}

func run(bin, counts, format string, extra []string) error {
	tmp, err := os.MkdirTemp("", "assay-evalmem-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "assay")
		build := exec.Command("go", "build", "-o", bin, "./cmd/assay")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building assay: %w", err)
		}
	}
	example, err := filepath.Abs("examples/priorauth")
	if err != nil {
		return err
	}
	one := filepath.Join(tmp, "one")
	if err := os.MkdirAll(one, 0o755); err != nil {
		return err
	}
	if err := exec.Command("cp", "-r", filepath.Join(example, "sandbox"), one).Run(); err != nil {
		return fmt.Errorf("copying the example: %w", err)
	}
	fmt.Printf("%8s  %9s  %9s  %12s  %s\n", "runs", "wall", "runs/s", "peak RSS", "format")
	for _, field := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			return fmt.Errorf("-runs: %q is not a count", field)
		}
		dir := filepath.Join(tmp, "runs-"+strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for i := range n {
			if err := os.Symlink(one, filepath.Join(dir, fmt.Sprintf("run-%07d", i))); err != nil {
				return err
			}
		}
		args := append([]string{"eval", "--runs", dir, "--criteria", filepath.Join(example, "criteria.json"), "--format", format}, extra...)
		cmd := exec.Command(bin, args...)
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		cmd.Stdout, cmd.Stderr = devnull, devnull
		start := time.Now()
		err = cmd.Run()
		wall := time.Since(start)
		devnull.Close()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
			return fmt.Errorf("%d runs: %v", n, err)
		}
		ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		peak := "?"
		if ru != nil {
			peak = fmt.Sprintf("%.1f MiB", float64(ru.Maxrss)/1024) // ru_maxrss is in KiB on Linux
		}
		fmt.Printf("%8d  %9s  %9.0f  %12s  %s\n", n, wall.Round(time.Millisecond), float64(n)/wall.Seconds(), peak, format)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return nil
}
