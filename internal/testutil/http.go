package testutil

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Response is an HTTP answer, read whole.
type Response struct {
	Status int
	Body   string
}

// Get sends GET url and reads the answer, failing the test when it
// cannot.
func Get(t testing.TB, url string) Response {
	t.Helper()
	resp, err := http.Get(url)
	return read(t, resp, err)
}

// Post sends body to url as JSON and reads the answer, failing the test
// when it cannot.
func Post(t testing.TB, url, body string) Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	return read(t, resp, err)
}

func read(t testing.TB, resp *http.Response, err error) Response {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Body: string(body)}
}
