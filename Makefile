# toolgen's tasks. Everything here needs only Go (and a C compiler for the
# race detector); tools such as staticcheck run through the module proxy.

GO       ?= go
FUZZTIME ?= 30s

# Every fuzz target, as package:Target.
FUZZ_TARGETS = \
	./internal/decimal:FuzzAgainstBigRat \
	./internal/canon:FuzzCanonicalString \
	./internal/canon:FuzzSkip \
	./jsonvalue:FuzzMaterialize \
	./jsonvalue:FuzzFastPath \
	./jsonvalue:FuzzReader \
	./jsonvalue:FuzzUnescape \
	./schemasubset:FuzzParse \
	./schemasubset:FuzzValidate \
	./annotations:FuzzParseTool \
	./annotations:FuzzParseTag \
	./annotations:FuzzParseOneOf \
	./annotations:FuzzParseDirective \
	./annotations:FuzzParseSchema \
	./internal/argsgen:FuzzValid \
	./runtime/providers:FuzzRestoreOptional \
	./runtime/mcpclient:FuzzImportSchema \
	./gen:FuzzUnifiedDiff \
	./generated_test/rules:FuzzDecodeArgs

STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: test check bench fuzz lint demo generate

## test: vet and race-test the module, then the bench module's agreement tests.
test:
	$(GO) vet ./...
	$(GO) test -race ./...
	cd bench && $(GO) vet ./... && $(GO) test ./...

## check: fail when formatting, go.mod/go.sum or generated code is stale.
check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed (run gofmt -w .):"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	cd bench && $(GO) mod tidy -diff
	TOOLGEN_CHECK=1 $(GO) generate ./...
	cd bench && TOOLGEN_CHECK=1 $(GO) generate ./...

## bench: run every benchmark 5 times, interleaved (so that drift in a shared
## machine's speed hits every row alike), and print the report tables.
bench:
	cd bench && rm -f results.txt && for i in 1 2 3 4 5; do \
		$(GO) test -run '^$$' -bench . -benchmem -count 1 | tee -a results.txt || exit 1; \
	done
	cd bench && $(GO) run ./cmd/benchreport < results.txt

## fuzz: run every fuzz target for FUZZTIME each (default 30s).
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME); \
	done

## lint: go vet and staticcheck over both modules.
lint:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	cd bench && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...

## generate: regenerate every generated file.
generate:
	$(GO) generate ./...

## demo: the main job: regenerate the example tools, then run one scripted
## model turn through the runtime and print every call (examples/demo).
demo:
	$(GO) generate ./examples/...
	$(GO) run ./examples/demo
