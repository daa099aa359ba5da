package main

// generateProgram is what pulumi-language-nodejs's GenerateProgram does (the CLI calls it for `pulumi import`'s
// code and `pulumi convert`): bind the PCL program in a directory with the schema loader the CLI serves (its
// address in the request's loader target), leniently unless strict, and generate TypeScript from it with
// github.com/pulumi/pulumi/pkg/v3/codegen/nodejs. The repository's stand-in Node.js language host
// (scripts/engine/language-host.cjs) runs it for that RPC, since the official host cannot be built here.
// It prints {"files": {name: base64}, "diagnostics": [{"severity", "summary", "detail"}]} on stdout.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

type programDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
}

func generateProgram(language, directory, loaderTarget string, strict bool) error {
	if language != "nodejs" {
		return fmt.Errorf("-program: only nodejs programs are generated (asked for %q)", language)
	}
	if loaderTarget == "" {
		return errors.New("-program needs -loader, the address of the CLI's schema loader")
	}
	loader, err := schema.NewLoaderClient(loaderTarget)
	if err != nil {
		return err
	}
	defer loader.Close()
	var options []pcl.BindOption
	if !strict {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	program, diags, err := pcl.BindDirectory(directory, schema.NewCachedLoader(loader), options...)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	if !diags.HasErrors() {
		var genDiags hcl.Diagnostics
		files, genDiags, err = nodejsgen.GenerateProgram(program)
		if err != nil {
			return err
		}
		diags = append(diags, genDiags...)
	}
	out := struct {
		Files       map[string][]byte   `json:"files"`
		Diagnostics []programDiagnostic `json:"diagnostics"`
	}{Files: files, Diagnostics: []programDiagnostic{}}
	for _, d := range diags {
		severity := "warning"
		if d.Severity == hcl.DiagError {
			severity = "error"
		}
		out.Diagnostics = append(out.Diagnostics, programDiagnostic{severity, d.Summary, d.Detail})
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
