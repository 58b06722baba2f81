package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ka2/ka2/render"
)

// Endpoint is a generator behind an OpenAI-compatible Chat Completions
// server (llama.cpp's server, vLLM, Ollama, hosted APIs). It sends the
// body render.OpenAIChat makes and reads the first choice's message.
type Endpoint struct {
	// URL is the chat completions URL, e.g.
	// http://127.0.0.1:8080/v1/chat/completions.
	URL   string
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Client sends the requests; nil means a client with a 2-minute
	// time-out per request.
	Client *http.Client
	// Retries is how many times a 429, a 5xx or a failed connection is
	// retried (default 4); Backoff the first wait (default 1s), doubled
	// each time and capped at 30s, or the server's Retry-After when it
	// gives one (capped the same).
	Retries int
	Backoff time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests inject
	// one that does not wait.
	Sleep func(ctx context.Context, d time.Duration) error
}

// maxResponse bounds a server's answer body.
const maxResponse = 4 << 20

// maxBackoff caps one wait between retries.
const maxBackoff = 30 * time.Second

type chatResponse struct {
	Choices []struct {
		Message struct {
			// Content is null in a reply that only calls tools.
			Content   *string           `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Answer sends the contract, with req.MaxTokens as max_tokens, and
// returns the reply's text. A reply with no text (content null, as in a
// reply that only calls tools, or only white space) is an error: the
// generator did not answer.
func (e *Endpoint) Answer(ctx context.Context, contract []byte, req Request) (string, error) {
	body, err := render.OpenAIChat{}.Request(contract, render.Options{Model: e.Model, MaxTokens: req.MaxTokens})
	if err != nil {
		return "", err
	}
	client := e.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	retries := e.Retries
	if retries == 0 {
		retries = 4
	}
	wait := e.Backoff
	if wait == 0 {
		wait = time.Second
	}
	sleep := e.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for attempt := 0; ; attempt++ {
		text, retryAfter, err := e.once(ctx, client, body)
		if err == nil {
			return text, nil
		}
		var te *transient
		if !errors.As(err, &te) || attempt >= retries || ctx.Err() != nil {
			if attempt > 0 {
				return "", fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return "", err
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		if err := sleep(ctx, min(d, maxBackoff)); err != nil {
			return "", err
		}
		wait = min(wait*2, maxBackoff)
	}
}

// transient is a failure worth retrying: 429, 5xx, or no connection.
type transient struct{ err error }

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

func (e *Endpoint) once(ctx context.Context, client *http.Client, body []byte) (string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return "", 0, fmt.Errorf("endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, ctx.Err()
		}
		return "", 0, &transient{fmt.Errorf("endpoint: %w", err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return "", 0, &transient{fmt.Errorf("endpoint: reading the answer: %w", err)}
	}
	if len(data) > maxResponse {
		return "", 0, fmt.Errorf("endpoint: the answer is over %d bytes", maxResponse)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			after = time.Duration(s) * time.Second
		}
		return "", after, &transient{fmt.Errorf("endpoint: %s", resp.Status)}
	}
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("endpoint: %s: %s", resp.Status, bytes.TrimSpace(data[:min(len(data), 300)]))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", 0, fmt.Errorf("endpoint: the answer is not a chat completion: %w", err)
	}
	if len(cr.Choices) == 0 {
		return "", 0, fmt.Errorf("endpoint: the answer has no choices")
	}
	ch := cr.Choices[0]
	if ch.Message.Content == nil || strings.TrimSpace(*ch.Message.Content) == "" {
		what := "an empty content"
		if ch.Message.Content == nil {
			what = "no content"
		}
		if n := len(ch.Message.ToolCalls); n > 0 {
			what += " and " + plural.Count(n, "tool call", "tool calls")
		}
		if ch.FinishReason != "" {
			what += fmt.Sprintf(" (finish_reason %q)", ch.FinishReason)
		}
		return "", 0, fmt.Errorf("endpoint: the reply has %s: no answer", what)
	}
	return *ch.Message.Content, 0, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
