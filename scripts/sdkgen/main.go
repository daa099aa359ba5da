// Command sdkgen writes the Pulumi SDKs of a package schema with the code generators the Pulumi language hosts
// use: github.com/pulumi/pulumi/pkg/v3/codegen/{nodejs,python,go} (linked in) and, for .NET,
// github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3/codegen (in the separate module ./dotnet, because
// the newest .NET generator the Go module proxy serves needs github.com/pulumi/pulumi/sdk/v3 <= v3.255.0).
//
//	cd scripts/sdkgen && go run . -schema ../../src/native/schema.json -out ../../sdk -lang nodejs,python,go,dotnet
//
// It mirrors `pulumi package gen-sdk <schema.json> --language <lang> --out <out>` (pkg/cmd/pulumi/packagecmd,
// pkg/cmd/pulumi/packages.GenSDK): the CLI binds the schema (schema.BindSpec with AllowDanglingReferences),
// sends the bound package's JSON to the language host, which binds it again and calls its generator with
// (tool "pulumi-language-<lang>", no overlays, no local dependencies, local=false); the files are written to
// <out>/<lang> after that directory is emptied. Unlike the CLI no plugin host is started, so the schema must not
// reference other packages.
//
// Go: unless the schema sets supportPack, the Go generator writes no go.mod. sdkgen then writes one (module =
// language.go.modulePath, else the parent of language.go.importBasePath, as the generator does in supportPack
// mode), requiring github.com/pulumi/pulumi/sdk/v3 at the version sdkgen is built with, and (-go-tidy, the
// default) runs `go mod tidy` in <out>/go, so that the SDK builds as written (go.mod + go.sum).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// The generators linked in, called as the language hosts call them.
var generators = map[string]func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error){
	// pulumi-language-nodejs: GeneratePackage(tool, pkg, req.ExtraFiles, req.LocalDependencies, req.Local, loader).
	// local=false: a publishable SDK (package.json, tsconfig.json; no scripts/postinstall.js).
	"nodejs": func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
		return nodejsgen.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, loader)
	},
	// pulumi-language-python: GeneratePackage(tool, pkg, req.ExtraFiles, loader).
	"python": func(pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
		return pythongen.GeneratePackage("pulumi-language-python", pkg, nil, loader)
	},
	// pulumi-language-go: GeneratePackage(tool, pkg, req.LocalDependencies).
	"go": func(pkg *schema.Package, _ schema.ReferenceLoader) (map[string][]byte, error) {
		return gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	},
}

var allLanguages = []string{"nodejs", "python", "go", "dotnet"}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "sdkgen: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	schemaPath := flag.String("schema", "", "path of the package schema (JSON)")
	out := flag.String("out", "", "output directory; each language is written to <out>/<lang>, which is emptied first")
	langs := flag.String("lang", "nodejs,python,go", "comma-separated languages: "+strings.Join(allLanguages, ", "))
	goSDKVersion := flag.String("go-sdk-version", "",
		"github.com/pulumi/pulumi/sdk/v3 version the generated go.mod requires (default: the one sdkgen is built with)")
	goTidy := flag.Bool("go-tidy", true, "run `go mod tidy` in <out>/go after writing go.mod (needs go and the module proxy or cache)")
	dotnetGen := flag.String("dotnet-generator", os.Getenv("SDKGEN_DOTNET"),
		"the built ./dotnet helper (env SDKGEN_DOTNET); default: `go run .` in ./dotnet, relative to the working directory")
	version := flag.Bool("version", false, "print the versions of the linked generator modules and exit")
	programDir := flag.String("program", "",
		"generate the program of the PCL files in this directory instead (what a language host's GenerateProgram does; program.go)")
	loaderTarget := flag.String("loader", "", "with -program: the address of the CLI's schema loader")
	strict := flag.Bool("strict", false, "with -program: bind strictly")
	hostDir := flag.String("host-dir", "",
		"generate one language's SDK into exactly this directory, as its language host's GeneratePackage does (host.go)")
	local := flag.Bool("local", false, "with -host-dir: a local SDK (`pulumi package add`)")
	flag.Parse()
	if *programDir != "" {
		return generateProgram(*langs, *programDir, *loaderTarget, *strict)
	}
	if *hostDir != "" {
		return generateAsHost(*langs, *schemaPath, *hostDir, *local)
	}

	if *version {
		for _, m := range []string{"github.com/pulumi/pulumi/pkg/v3", "github.com/pulumi/pulumi/sdk/v3"} {
			fmt.Printf("%s %s\n", m, moduleVersion(m))
		}
		return nil
	}
	if *schemaPath == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		return errors.New("-schema and -out are required")
	}
	var selected []string
	for _, l := range strings.Split(*langs, ",") {
		switch l = strings.TrimSpace(l); l {
		case "":
			continue
		case "typescript", "javascript":
			l = "nodejs"
		case "csharp", "c#":
			l = "dotnet"
		}
		if generators[l] == nil && l != "dotnet" {
			return fmt.Errorf("unknown language %q (supported: %s)", l, strings.Join(allLanguages, ", "))
		}
		selected = append(selected, l)
	}
	if len(selected) == 0 {
		return errors.New("no language selected")
	}

	raw, err := os.ReadFile(*schemaPath)
	if err != nil {
		return err
	}
	// As the CLI: bind (and validate) the spec, then hand the bound package's JSON to each generator.
	pkg, err := bind(raw, *schemaPath)
	if err != nil {
		return err
	}
	boundJSON, err := pkg.MarshalJSON()
	if err != nil {
		return err
	}

	for _, lang := range selected {
		dir := filepath.Join(*out, lang)
		if lang == "dotnet" {
			if err := runDotnet(*dotnetGen, boundJSON, *out); err != nil {
				return fmt.Errorf("dotnet: %w", err)
			}
			continue
		}
		// As the language host: bind again from the JSON (a generator also mutates pkg.Language).
		langPkg, err := bind(boundJSON, *schemaPath)
		if err != nil {
			return err
		}
		files, err := generators[lang](langPkg, noLoader{})
		if err != nil {
			return fmt.Errorf("%s: %w", lang, err)
		}
		if _, ok := files["go.mod"]; lang == "go" && !ok {
			if files["go.mod"], err = goMod(langPkg, *goSDKVersion); err != nil {
				return err
			}
		}
		if err := writeFiles(dir, files); err != nil {
			return fmt.Errorf("%s: %w", lang, err)
		}
		if lang == "go" && *goTidy {
			if err := tidy(dir); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "sdkgen: %s: %d files -> %s\n", lang, len(files), dir)
	}
	return nil
}

// runDotnet hands the bound schema to the .NET helper (module ./dotnet), as the CLI hands it to a language host.
func runDotnet(helper string, boundJSON []byte, out string) error {
	tmp, err := os.CreateTemp("", "sdkgen-schema-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(boundJSON); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	var cmd *exec.Cmd
	if helper != "" {
		cmd = exec.Command(helper, "-schema", tmp.Name(), "-out", out)
	} else {
		if _, err := os.Stat(filepath.Join("dotnet", "go.mod")); err != nil {
			return errors.New("pass -dotnet-generator <built scripts/sdkgen/dotnet> or run sdkgen from scripts/sdkgen")
		}
		absOut, err := filepath.Abs(out)
		if err != nil {
			return err
		}
		cmd = exec.Command("go", "run", ".", "-schema", tmp.Name(), "-out", absOut)
		cmd.Dir = "dotnet"
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// noLoader refuses every external package: the schema is self-contained, and generating its SDKs must not
// start provider plugins or download anything.
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

func bind(raw []byte, what string) (*schema.Package, error) {
	var spec schema.PackageSpec
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&spec); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
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
		fmt.Fprintf(os.Stderr, "sdkgen: %s: %s: %s\n", what, sev, msg)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: the schema does not bind (errors above)", what)
	}
	return pkg, nil
}

// writeFiles replaces dir with exactly files (as the CLI does: RemoveAll, then write).
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range append([]string{""}, names...) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if name != "" {
			if err := os.WriteFile(p, files[name], 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// goMod is the go.mod the Go generator writes in supportPack mode, for a schema that does not set supportPack.
func goMod(pkg *schema.Package, sdkVersion string) ([]byte, error) {
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	modulePath := info.ModulePath
	if modulePath == "" {
		if info.ImportBasePath == "" {
			return nil, errors.New("go: the schema sets neither language.go.modulePath nor language.go.importBasePath")
		}
		modulePath = path.Dir(info.ImportBasePath)
	}
	if sdkVersion == "" {
		sdkVersion = moduleVersion("github.com/pulumi/pulumi/sdk/v3")
	}
	if !strings.HasPrefix(sdkVersion, "v") {
		sdkVersion = "v" + sdkVersion
	}
	if _, err := semver.ParseTolerant(sdkVersion); err != nil {
		return nil, fmt.Errorf("go: bad github.com/pulumi/pulumi/sdk/v3 version %q", sdkVersion)
	}
	return []byte(fmt.Sprintf("module %s\n\ngo 1.25\n\nrequire github.com/pulumi/pulumi/sdk/v3 %s\n",
		modulePath, sdkVersion)), nil
}

// tidy runs `go mod tidy` in dir with the local toolchain and drops any toolchain line, so that the result
// depends only on the module versions, not on the Go that ran it.
func tidy(dir string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return errors.New("go: `go` is not on PATH (needed for `go mod tidy`; or pass -go-tidy=false)")
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"mod", "edit", "-toolchain=none"}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go: `go %s` in %s: %w", strings.Join(args, " "), dir, err)
		}
	}
	return nil
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
