package command

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// keyFDEnv names, in the environment of an assay run that a copy of itself
// re-executed (see hideKey), the file descriptor from which it reads the
// model's key.
const keyFDEnv = "ASSAY_RUN_KEY_FD"

// maxHandedKey bounds the key handed over a pipe: it fits the smallest pipe
// buffer, so writing it never waits for the reader.
const maxHandedKey = 4096

// handedKey returns the key a re-executed assay run was handed (see
// hideKey), "" when the process was not re-executed so or Main does not run
// with the process's environment. It reads the descriptor once, closes it,
// and removes keyFDEnv from the environment the runs' commands get.
func (c *cli) handedKey() (string, error) {
	v, ok := os.LookupEnv(keyFDEnv)
	if !ok || !c.ownsProcess {
		return "", nil
	}
	_ = os.Unsetenv(keyFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return "", fmt.Errorf("%s=%q: not a file descriptor holding the key", keyFDEnv, v)
	}
	f := os.NewFile(uintptr(fd), keyFDEnv)
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return "", fmt.Errorf("%s=%d: not a pipe holding the key", keyFDEnv, fd)
	}
	key, err := io.ReadAll(io.LimitReader(f, maxHandedKey+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("%s=%d: reading the key: %w", keyFDEnv, fd, err)
	case len(key) == 0 || len(key) > maxHandedKey:
		return "", fmt.Errorf("%s=%d: not a key of 1 to %d bytes", keyFDEnv, fd, maxHandedKey)
	}
	return string(key), nil
}
