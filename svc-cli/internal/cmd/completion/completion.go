// Package completion is the `svc completion` command.
package completion

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

// NewCmdCompletion returns the completion command, which prints the shell
// completion script that cobra generates for the whole command tree.
func NewCmdCompletion(f *cmdutil.Factory) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of svc for a shell.

  bash:        source <(svc completion bash)
  zsh:         svc completion zsh > "${fpath[1]}/_svc"
  fish:        svc completion fish > ~/.config/fish/completions/svc.fish
  powershell:  svc completion powershell | Out-String | Invoke-Expression`,
		ValidArgs:             shells,
		Args:                  cmdutil.ExactOneOf(shells...),
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), f.IOStreams.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return fmt.Errorf("unknown shell %q", args[0])
		},
	}
}
