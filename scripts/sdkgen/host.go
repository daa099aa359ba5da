package main

// generateAsHost is what a language host's GeneratePackage does when `pulumi package gen-sdk` or `pulumi package
// add` hands it a bound schema: bind it again, call the language's generator with the arguments that host passes
// (the tool name, no overlays, no local dependencies; `local` for a `package add` SDK in Node.js) and write exactly
// the files the generator returns into the directory the CLI names. Nothing is added (no go.mod or `go mod tidy`,
// which sdkgen's own mode adds to sdk/go). The repository's stand-in language host
// (scripts/engine/language-host.cjs) runs it for GeneratePackage, since the official hosts cannot be built here.

import (
	"fmt"
	"os"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
)

func generateAsHost(language, schemaPath, dir string, local bool) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	pkg, err := bind(raw, schemaPath)
	if err != nil {
		return err
	}
	var files map[string][]byte
	switch language {
	case "nodejs":
		files, err = nodejsgen.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, local, noLoader{})
	case "python":
		files, err = pythongen.GeneratePackage("pulumi-language-python", pkg, nil, noLoader{})
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	default:
		return fmt.Errorf("-host-dir: unknown language %q (nodejs, python, go)", language)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", language, err)
	}
	return writeFiles(dir, files)
}
