// Command dotnet (the .NET half of scripts/sdkgen) writes the .NET SDK of a package schema with the generator of
// the Pulumi .NET language host, github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3/codegen.
//
//	cd scripts/sdkgen/dotnet && go run . -schema ../../../src/native/schema.json -out ../../../sdk
//
// It is a module of its own because the newest pulumi-language-dotnet the Go module proxy serves (v3.102.0) is
// built against github.com/pulumi/pulumi/pkg/v3 and sdk/v3 v3.225.0 and does not compile with later ones (it
// imports sdk/v3/go/common/util/maputil, removed in v3.256.0, and uses pkg/v3 codegen APIs changed by v3.255.0:
// schema.Parameterization.BaseProvider, pcl.FixupPulumiPackageTokens, DocLanguageHelper). So this module pins
// pkg/v3 and sdk/v3 at v3.225.0, while ../ (nodejs, python, go) uses v3.259.0. ../ runs it for `-lang dotnet`,
// passing the bound schema, as the CLI passes it to a language host.
//
// Mirrors pulumi-language-dotnet's GeneratePackage: BindSpec(AllowDanglingReferences), then
// codegen.GeneratePackage("pulumi-language-dotnet", pkg, req.ExtraFiles, req.LocalDependencies); the files are
// written to <out>/dotnet after that directory is emptied (as `pulumi package gen-sdk` does).
//
// The .NET generator downloads the package icon (logo.png, referenced by the .csproj as PackageIcon) from the
// schema's logoUrl, or else from a Pulumi logo on raw.githubusercontent.com. This helper never goes to the
// network: every HTTP request the generator makes is answered with the file given by -logo, or else with the
// placeholder logo.png embedded here.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	_ "embed"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	dotnetgen "github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3/codegen"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

//go:embed logo.png
var placeholderLogo []byte

// logoTransport answers every request with the logo: SDK generation must not depend on the network.
type logoTransport struct {
	logo []byte
	from string
}

func (t logoTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	fmt.Fprintf(os.Stderr, "sdkgen-dotnet: logo.png: using %s instead of downloading %s\n", t.from, req.URL)
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"image/png"}},
		Body:          io.NopCloser(strings.NewReader(string(t.logo))),
		ContentLength: int64(len(t.logo)),
		Request:       req,
	}, nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "sdkgen-dotnet: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	schemaPath := flag.String("schema", "", "path of the package schema (JSON)")
	out := flag.String("out", "", "output directory; the SDK is written to <out>/dotnet, which is emptied first")
	logo := flag.String("logo", "", "PNG file to use as the package icon (default: the placeholder embedded in sdkgen)")
	version := flag.Bool("version", false, "print the versions of the linked generator modules and exit")
	flag.Parse()
	if *version {
		for _, m := range []string{"github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3",
			"github.com/pulumi/pulumi/pkg/v3", "github.com/pulumi/pulumi/sdk/v3"} {
			fmt.Printf("%s %s\n", m, moduleVersion(m))
		}
		return nil
	}
	if *schemaPath == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		return errors.New("-schema and -out are required")
	}
	transport := logoTransport{logo: placeholderLogo, from: "the placeholder embedded in scripts/sdkgen/dotnet"}
	if *logo != "" {
		b, err := os.ReadFile(*logo)
		if err != nil {
			return err
		}
		transport = logoTransport{logo: b, from: *logo}
	}
	http.DefaultTransport = transport
	http.DefaultClient.Transport = transport

	raw, err := os.ReadFile(*schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&spec); err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	for _, d := range diags {
		sev := "warning"
		if d.Severity == hcl.DiagError {
			sev = "error"
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		fmt.Fprintf(os.Stderr, "sdkgen-dotnet: %s: %s: %s\n", *schemaPath, sev, msg)
	}
	if diags.HasErrors() {
		return fmt.Errorf("%s: the schema does not bind (errors above)", *schemaPath)
	}
	files, err := dotnetgen.GeneratePackage("pulumi-language-dotnet", pkg, nil, nil)
	if err != nil {
		return err
	}
	dir := filepath.Join(*out, "dotnet")
	if err := writeFiles(dir, files); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "sdkgen: dotnet: %d files -> %s\n", len(files), dir)
	return nil
}

// writeFiles replaces dir with exactly files.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noLoader refuses every external package (the schema is self-contained; nothing is started or downloaded).
type noLoader struct{}

func (noLoader) err(name string) error {
	return fmt.Errorf("the schema references package %q; sdkgen supports only self-contained schemas", name)
}

func (l noLoader) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.err(pkg)
}

func (l noLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.err(d.Name)
}

func (l noLoader) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.err(pkg)
}

func (l noLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.err(d.Name)
}

func moduleVersion(mod string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == mod {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
