package quickstart_test

import (
	"context"
	"fmt"

	"github.com/toolgen-go/toolgen/examples/quickstart"
	"github.com/toolgen-go/toolgen/runtime"
)

// Example registers the generated tools and runs two calls through the
// runtime's pipeline: one valid, one with arguments the decoder refuses.
func Example() {
	ctx := context.Background()
	rt := runtime.New()
	for _, def := range quickstart.Tools() {
		if _, err := rt.Register(def); err != nil {
			panic(err)
		}
	}

	res := rt.Execute(ctx, runtime.ExecutionInput{CallID: "call_1", Name: "greet", Arguments: []byte(`{"name":"Ada"}`)})
	fmt.Println(res.Value, res.Content[0].Text)

	res = rt.Execute(ctx, runtime.ExecutionInput{CallID: "call_2", Name: "greet", Arguments: []byte(`{"name":7}`)})
	fmt.Println(res.Code(), res.Failure.Message)
	// Output:
	// {"text":"hello, Ada"} {"text":"hello, Ada"}
	// INVALID_ARGS invalid arguments: /name: want string, got number
}
