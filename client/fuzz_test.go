package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
)

// seeds returns the files of testdata/responses and testdata/assertions.
func seeds(f *testing.F) [][]byte {
	f.Helper()
	var out [][]byte
	for _, pattern := range []string{"testdata/responses/*", "testdata/assertions/*"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, data)
		}
	}
	if len(out) == 0 {
		f.Fatal("no seeds")
	}
	return out
}

// cannedTransport answers every request with one response, without a
// network.
type cannedTransport struct {
	status      int
	contentType string
	body        []byte
}

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: c.status, Status: http.StatusText(c.status),
		Header:        http.Header{"Content-Type": {c.contentType}, "X-Request-Id": {"req_f"}},
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: -1, Request: r,
	}, nil
}

// FuzzResponse sends every call against a server that answers with
// arbitrary status, content type and body: no panic, and every error is one
// of the package's types.
func FuzzResponse(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(200, "application/json", s)
		f.Add(422, "application/json", s)
	}
	f.Add(502, "text/html", []byte("<html>bad gateway</html>"))
	f.Add(204, "", []byte(nil))
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		status = 100 + (status%500+500)%500
		if status == http.StatusSwitchingProtocols || status == http.StatusContinue || status == http.StatusEarlyHints || status == http.StatusProcessing {
			status = 200 // informational statuses never reach a client
		}
		cl, err := New("http://api.test", WithAPIKey("fuzz-key-123456"), WithRetryPolicy(RetryPolicy{}),
			WithHTTPClient(&http.Client{Transport: cannedTransport{status, contentType, body}}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		typed := func(err error) {
			if err == nil {
				return
			}
			var (
				apiErr  *APIError
				respErr *ResponseError
				reqErr  *RequestError
			)
			if !errors.As(err, &apiErr) && !errors.As(err, &respErr) && !errors.As(err, &reqErr) {
				t.Errorf("untyped error %T: %v", err, err)
			}
			_ = err.Error()
		}
		list, _, err := cl.Criteria.List(ctx, "t", nil)
		typed(err)
		for _, c := range list {
			if c.Assertion != nil {
				if _, err := c.Assertion.MarshalJSON(); err != nil {
					t.Errorf("a listed assertion does not marshal: %v", err)
				}
			}
		}
		_, _, err = cl.Criteria.Get(ctx, "c1")
		typed(err)
		_, _, err = cl.Criteria.Create(ctx, assert.Criterion{TaskID: "t", Assertion: ExitCode{Code: 0}.Spec()})
		typed(err)
		_, err = cl.Criteria.Delete(ctx, "c1")
		typed(err)
		for c, err := range cl.Criteria.All(ctx, "t", nil) {
			typed(err)
			_ = c
		}
	})
}

// FuzzCriterionUpdate: an update file that decodes marshals back to a body
// that decodes to the same update.
func FuzzCriterionUpdate(f *testing.F) {
	f.Add([]byte(`{"axis":null,"weight":2,"label":"x","assertion":{"assert":"ran","ran":"a"}}`))
	f.Add([]byte(`{"input_entity_id":"e","task_id":"t"}`))
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u CriterionUpdate
		if json.Unmarshal(data, &u) != nil {
			return
		}
		out, err := u.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: decoded but does not marshal: %v", data, err)
		}
		var again CriterionUpdate
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("marshalled %s does not decode: %v", out, err)
		}
		out2, err := again.MarshalJSON()
		if err != nil || !bytes.Equal(out, out2) {
			t.Errorf("not stable: %s then %s (%v)", out, out2, err)
		}
	})
}

// FuzzRetryAfter: any header value gives a wait within [0, cap].
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "5", "120", "-1", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {value}}}
		got := DefaultBackoff(time.Millisecond, 30*time.Second, 0, resp)
		if got < 0 || got > 30*time.Second {
			t.Errorf("Retry-After %q: wait %v", value, got)
		}
	})
}

// FuzzNewBaseURL: any base URL gives a client or a *ConfigError, and a
// client's base is an absolute http(s) URL.
func FuzzNewBaseURL(f *testing.F) {
	for _, s := range []string{"https://api.example.com/v1/", "api.example.com", "localhost:8080", "http://",
		"https://u:p@h/", "https://h/%zz", "ftp://x", "//h/x", "https://h/?q#f", " https://h "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cl, err := New(raw, WithAPIKey(""))
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%q: untyped error %T %v", raw, err, err)
			}
			return
		}
		if !strings.HasPrefix(cl.base, "http://") && !strings.HasPrefix(cl.base, "https://") {
			t.Errorf("%q: base %q", raw, cl.base)
		}
	})
}

// echoTransport answers every request as a server that echoes the key:
// "KEY" in the status text, the request id and the body becomes the
// Authorization header's value.
type echoTransport struct {
	status      int
	requestID   string
	body        []byte
	statusText  string
	contentType string
}

func (e echoTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	echo := func(s string) string { return strings.ReplaceAll(s, "KEY", key) }
	return &http.Response{
		StatusCode: e.status, Status: echo(e.statusText),
		Header: http.Header{"Content-Type": {echo(e.contentType)}, "X-Request-Id": {echo(e.requestID)},
			"Www-Authenticate": {"Bearer " + key}},
		Body:          io.NopCloser(bytes.NewReader(bytes.ReplaceAll(e.body, []byte("KEY"), []byte(key)))),
		ContentLength: -1, Request: r,
	}, nil
}

// FuzzKeyNeverLeaks answers every call with an arbitrary status line,
// request id and body into which the key is echoed, and checks that no
// error, error field, decoded criterion or kept response holds the key.
func FuzzKeyNeverLeaks(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(200, "KEY", "OK", s)
	}
	f.Add(401, "KEY", "Unauthorized KEY", []byte(`{"error":{"code":"KEY","message":"bad key Bearer KEY","details":[{"field":"KEY","message":"KEY"}],"request_id":"KEY"}}`))
	f.Add(422, "req KEY", "x", []byte(`{"error":{"message":"\u0066uzz-key-123456","details":{"\u0066uzz-key-123456":["fuzz\u002dkey-123456"]}}}`))
	f.Add(200, "", "OK", []byte(`{"id":"\u0066uzz-key-123456","label":"KEY","axis":"fuzz\/key","assertion":{"k":"KEY"}}`))
	f.Add(200, "", "OK", []byte(`{"data":[{"id":"c","label":"fuzz-key-12345\u0036","assertion":{}}],"_meta":{"next":"KEY"}}`))
	f.Add(502, "KEY", "Bad Gateway", []byte("<html>KEY</html>"))
	const key = "fuzz-key-123456"
	f.Fuzz(func(t *testing.T, status int, requestID, statusText string, body []byte) {
		status = 200 + (status%400+400)%400
		cl, err := New("http://api.test", WithAPIKey(key), WithRetryPolicy(RetryPolicy{}),
			WithHTTPClient(&http.Client{Transport: echoTransport{status, requestID, body, statusText, "application/json"}}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var texts []string
		add := func(v ...any) {
			for _, x := range v {
				texts = append(texts, fmt.Sprintf("%+v", x))
			}
		}
		check := func(err error, crs ...assert.Criterion) {
			for _, c := range crs {
				add(c.ID, c.TaskID, c.InputEntityID, c.Label, c.Axis, string(c.Assertion))
			}
			if err == nil {
				return
			}
			add(err.Error())
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				add(apiErr.Code, apiErr.Message, apiErr.Details, string(apiErr.RawDetails), apiErr.RequestID, string(apiErr.Body), apiErr.Response.Header, apiErr.Response.Status)
			}
			var respErr *ResponseError
			if errors.As(err, &respErr) {
				add(respErr.Reason, respErr.ContentType, respErr.URL)
			}
		}
		list, resp, err := cl.Criteria.List(ctx, "t", nil)
		check(err, list...)
		if resp != nil {
			add(resp.RequestID, resp.NextCursor, resp.Header, resp.Status)
		}
		c, _, err := cl.Criteria.Get(ctx, "c1")
		if c != nil {
			check(err, *c)
		} else {
			check(err)
		}
		all, err := cl.Criteria.ListAll(ctx, "t")
		check(err, all...)
		for _, s := range texts {
			if strings.Contains(s, key) {
				t.Fatalf("the key leaks in %q", s)
			}
		}
	})
}
