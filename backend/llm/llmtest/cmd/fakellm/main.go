// Command fakellm runs the llmtest fake OpenAI-compatible server as its own
// process, for browser end-to-end tests. The first line on stdout is the
// base URL to configure (it ends in /v1); requests are logged to stderr.
//
//	fakellm --echo
//	fakellm --addr 127.0.0.1:8089 --script steps.json
//
// While it runs, tests can queue more steps with
// POST <root>/_llmtest/steps (a JSON step or list), read the recorded
// requests with GET <root>/_llmtest/requests and clear both with
// POST <root>/_llmtest/reset.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/weft-dev/weft/backend/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	script := flag.String("script", "", "JSON file: a list of steps or a script object (see llmtest.Script)")
	echo := flag.Bool("echo", false, "when the script is used up, answer with the last user message")
	apiKey := flag.String("api-key", "", "require this bearer API key")
	quiet := flag.Bool("quiet", false, "do not log requests to stderr")
	models := flag.String("models", "", "comma-separated model ids GET /models lists (default fake-model)")
	flag.Parse()

	logger := log.New(os.Stderr, "fakellm: ", log.LstdFlags|log.Lmicroseconds)
	var opts []llmtest.Option
	if *script != "" {
		sc, err := llmtest.LoadScript(*script)
		if err != nil {
			logger.Fatal(err)
		}
		opts = append(opts, sc.Options()...)
	}
	if *echo {
		opts = append(opts, llmtest.WithEcho())
	}
	if *models != "" {
		opts = append(opts, llmtest.WithModels(strings.Split(*models, ",")...))
	}
	if *apiKey != "" {
		opts = append(opts, llmtest.WithAPIKey(*apiKey))
	}
	if !*quiet {
		opts = append(opts, llmtest.WithLog(logger.Printf))
	}
	srv, err := llmtest.Listen(*addr, opts...)
	if err != nil {
		logger.Fatal(err)
	}
	fmt.Println(srv.URL)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
