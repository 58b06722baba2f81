package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/errkind"
)

// HealthcheckOptions are the inputs of `ka2 healthcheck`.
type HealthcheckOptions struct {
	f       *Factory
	URL     string
	Timeout time.Duration
	// Client sends the request; tests replace it.
	Client *http.Client
}

// NewCmdHealthcheck makes `ka2 healthcheck`: the probe for a container
// image that has no shell, curl or wget.
func NewCmdHealthcheck(f *Factory, runF func(*HealthcheckOptions) error) *cobra.Command {
	opts := &HealthcheckOptions{f: f, Client: http.DefaultClient}
	cmd := &cobra.Command{
		Use:   "healthcheck [URL]",
		Short: "Exit 0 when a running ka2 serve answers its health endpoint",
		Long: `Healthcheck sends GET to URL (default http://127.0.0.1:8080/healthz) and
exits 0 when the answer is 200 OK, 1 otherwise. It is the HEALTHCHECK of
the container image, which has no shell, curl or wget; Kubernetes probes
/healthz and /readyz over HTTP directly.`,
		Example: `  ka2 healthcheck
  ka2 healthcheck http://127.0.0.1:9090/readyz`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URL = "http://127.0.0.1:8080/healthz"
			if len(args) == 1 {
				opts.URL = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runHealthcheck(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Second, "how long to wait for the answer")
	return cmd
}

func runHealthcheck(ctx context.Context, o *HealthcheckOptions) error {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Errorf("URL %q: want http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/healthz", o.URL)}
	}
	if o.Timeout <= 0 {
		return usageError{errors.New("--timeout must be positive, e.g. --timeout 5s")}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.URL, nil)
	if err != nil {
		return usageError{err}
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("unhealthy: %w", err)}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("unhealthy: %s answered %s", o.URL, resp.Status)}
	}
	fmt.Fprintf(o.f.Out, "healthy: %s answered %s\n", o.URL, resp.Status)
	return nil
}
