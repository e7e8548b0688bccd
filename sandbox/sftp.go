package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/sftp"
)

func init() { register("sftp", loadSFTP) }

// maxURLFile caps sftp/sftp.url and fhir/fhir.url: one URL.
const maxURLFile = 64 << 10

// loadSFTP attaches the sftp/ folder: the final tree itself, or, when the
// folder holds sftp.url, the live endpoint it names
// (sftp://user@host:port/root; the private key from ASSAY_SFTP_KEY and
// the known_hosts file from ASSAY_SFTP_KNOWN_HOSTS, else the user's
// ~/.ssh). Nothing connects until a check asks. On disk the tree is read
// through check.DirFS rooted at sftp/ itself, so a link that leads out of
// sftp/ (into the rest of the snapshot too) is not a candidate.
func loadSFTP(f folder, env *assert.Env, opts Options) {
	data, err := check.ReadFile(f.fsys, "sftp.url", maxURLFile)
	switch {
	case err == nil:
		raw := strings.TrimSpace(string(data))
		// The endpoint's connection lives until the Env is closed.
		src, closer := sftp.URLSource(raw, os.Getenv("ASSAY_SFTP_KEY"), os.Getenv("ASSAY_SFTP_KNOWN_HOSTS"), opts.MaxFileSize, opts.MaxTotalSize)
		sftp.Attach(env, src)
		env.OnClose(closer)
		return
	case !errors.Is(err, fs.ErrNotExist):
		sftp.Attach(env, sftp.Unavailable(fmt.Errorf("sftp/sftp.url: %w", err)))
		return
	}
	fsys := f.fsys
	if f.dir != "" {
		fsys = check.CapTotal(check.DirFS(f.dir), opts.MaxTotalSize)
	}
	sftp.Attach(env, sftp.FolderSource(fsys, opts.MaxFileSize))
}
