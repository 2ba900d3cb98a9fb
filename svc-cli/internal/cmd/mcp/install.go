package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// InstallOptions are what `svc mcp install` runs with.
type InstallOptions struct {
	IO      *iostreams.IOStreams
	Client  string // claude-desktop, claude-code, cursor, vscode, codex
	Scope   string // user or project
	Config  string // the file to write; "" for the host's own
	Command string // the command the host runs, "svc" by default
	Print   bool
	SiteURL string // written when it is not the built-in site
	Getenv  func(string) string
	Now     func() time.Time
	Exe     func() (string, error) // the running svc, copied into an MCP Bundle
}

// hosts are the clients install knows, in the order --help lists them.
var hosts = []string{"claude-desktop", "claude-code", "cursor", "vscode", "codex"}

// NewCmdInstall returns the `mcp install` command.
func NewCmdInstall(f *cmdutil.Factory, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{IO: f.IOStreams, Getenv: f.Getenv, Now: time.Now, Exe: os.Executable}
	cmd := &cobra.Command{
		Use:   "install --client HOST",
		Short: "Add svc mcp to an MCP host's configuration, without the key",
		Long: `Write the server entry of svc mcp (command svc, args ["mcp"]) into an MCP host's
configuration, keeping every other entry, after a backup of the file
(FILE.bak-TIMESTAMP). Running it again changes nothing. The key is never written:

  claude-desktop  an MCP Bundle (svc-mcp.mcpb, holding this svc) to open in
                  Claude Desktop, which asks for the key and keeps it as a
                  sensitive setting (in the system's keychain); the bundle
                  runs its own copy of svc, whatever --command says
  vscode          an input prompt with "password": true: VS Code asks for the
                  key once and keeps it in its secret storage
  claude-code     .mcp.json (--scope project, the default) with ${SVC_API_KEY:-},
                  expanded from Claude Code's environment; ~/.claude.json
                  (--scope user: quit Claude Code first, it rewrites that
                  file), where the key comes from that environment
  cursor          ~/.cursor/mcp.json (--scope user, the default) or
                  .cursor/mcp.json, with ${env:SVC_API_KEY}
  codex           ~/.codex/config.toml (or .codex/config.toml), forwarding
                  SVC_API_KEY with env_vars

--print writes the file it would write to standard output instead. A file
(or a project's configuration directory) that is a symbolic link is refused:
give the real file with --config.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(hosts, opts.Client) {
				return cmdutil.FlagErrorf("--client must be one of %s", strings.Join(hosts, ", "))
			}
			if opts.Scope != "" && opts.Scope != "user" && opts.Scope != "project" {
				return cmdutil.FlagErrorf("--scope must be user or project")
			}
			if opts.Scope == "" {
				opts.Scope = "user"
				if opts.Client == "claude-code" {
					opts.Scope = "project"
				}
			}
			if site := f.Getenv("SVC_SITE_URL"); site != "" {
				opts.SiteURL = site
			}
			if runF != nil {
				return runF(opts)
			}
			return installRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Client, "client", "", "the MCP host: "+strings.Join(hosts, ", "))
	cmd.Flags().StringVar(&opts.Scope, "scope", "", "user (every project) or project (the current directory); default: project for claude-code, user otherwise")
	cmd.Flags().StringVar(&opts.Config, "config", "", "the file to write instead of the host's own")
	cmd.Flags().StringVar(&opts.Command, "command", "svc", "the command the host runs (a full path when svc is not on the host's PATH)")
	cmd.Flags().BoolVar(&opts.Print, "print", false, "print the file instead of writing it")
	return cmd
}

// host is how install writes one client's configuration.
type host interface {
	// path is the host's configuration file for scope.
	path(opts *InstallOptions) (string, error)
	// update returns the file with the server entry of svc added to old
	// (nil when there is no file yet).
	update(opts *InstallOptions, old []byte) ([]byte, error)
	// secret says how the key reaches svc mcp without being written.
	secret() string
}

func hostFor(client string) host {
	switch client {
	case "claude-desktop":
		return claudeDesktop{}
	case "claude-code":
		return claudeCode{}
	case "cursor":
		return cursor{}
	case "vscode":
		return vscode{}
	}
	return codex{}
}

func installRun(opts *InstallOptions) error {
	h := hostFor(opts.Client)
	path := opts.Config
	if path == "" {
		var err error
		if path, err = h.path(opts); err != nil {
			return err
		}
	}
	if opts.Config == "" && opts.Scope == "project" {
		if err := checkProjectDir(path); err != nil {
			return err
		}
	}
	old, err := readConfig(path) // never through a link (safewrite.go)
	if err != nil {
		return err
	}
	if b, ok := h.(claudeDesktop); ok {
		return b.install(opts, path, old)
	}
	updated, err := h.update(opts, old)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	out := opts.IO.Out
	if opts.Print {
		_, err := out.Write(updated)
		fmt.Fprintf(opts.IO.ErrOut, "# %s (not written). %s\n", path, h.secret())
		return err
	}
	if bytes.Equal(old, updated) {
		fmt.Fprintf(out, "%s already has the svc entry; nothing changed.\n%s\n", path, h.secret())
		return nil
	}
	backup, err := writeWithBackup(path, old, updated, opts.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Wrote the svc entry to %s", path)
	if backup != "" {
		fmt.Fprintf(out, " (the previous file is %s)", backup)
	}
	fmt.Fprintf(out, ".\n%s\nThe key is not in the file. Restart %s to load it.\n", h.secret(), opts.Client)
	if backup != "" && keyInFile.Match(old) {
		fmt.Fprintf(opts.IO.ErrOut, "warning: the previous file held a developer key; it is gone from %s but remains in %s: delete that backup once you have checked the new file\n", path, backup)
	}
	return nil
}

// keyInFile matches a developer key written in a configuration file.
var keyInFile = regexp.MustCompile(`svc_live_[A-Za-z0-9_-]{43}`)

// writeWithBackup copies the previous file (when there is one: old, the
// bytes read) to a new path.bak-TIMESTAMP with its mode (writeBackup:
// created exclusively), then replaces path atomically (a temporary file in
// the same directory, renamed). A new file is 0600. A path that is a
// symbolic link is refused, never replaced by a regular file.
func writeWithBackup(path string, old, data []byte, now time.Time) (backup string, err error) {
	mode := fs.FileMode(0o600)
	st, err := os.Lstat(path)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return "", errLink(path)
	case err == nil:
		mode = st.Mode().Perm()
		if backup, err = writeBackup(path, old, mode, now); err != nil {
			return "", err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return backup, nil
}

// siteEnv is the SVC_SITE_URL to write: the site when it is not the
// built-in one (a site URL is not a secret).
func siteEnv(opts *InstallOptions) map[string]string {
	if opts.SiteURL == "" || opts.SiteURL == defaultSite() {
		return nil
	}
	return map[string]string{"SVC_SITE_URL": opts.SiteURL}
}

// defaultSite is the site svc uses without SVC_SITE_URL.
func defaultSite() string { return svc.DefaultSiteURL }

func home() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to find the configuration in (give --config): %w", err)
	}
	return h, nil
}

func projectOrHome(opts *InstallOptions, project, user string) (string, error) {
	if opts.Scope == "project" {
		return filepath.Abs(project)
	}
	h, err := home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, user), nil
}

// entryJSON marshals v for a JSON configuration.
func entryJSON(v any) json.RawMessage {
	raw, _ := json.Marshal(v)
	return raw
}

func userConfigDir() (string, error) {
	if runtime.GOOS == "linux" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			return x, nil
		}
	}
	return os.UserConfigDir()
}
