// Command lifecycle drives one step of the native provider's lifecycle through the real engine, as an Automation
// API inline program on the generated Go SDK (github.com/pulumi-webhook-endpoints/.../sdk/go/webhooks): the program
// runs in this process, so no Go language host is needed, only the `pulumi` CLI on PATH. The engine finds the
// plugin pulumi-resource-webhooks where `pulumi plugin install` put it (PULUMI_HOME).
//
//	lifecycle up|preview|refresh|destroy
//
// Environment: PULUMI_BACKEND_URL, PULUMI_HOME, PULUMI_CONFIG_PASSPHRASE (read by the CLI), LIFECYCLE_WORK_DIR
// (the workspace directory), LIFECYCLE_CONFIG (JSON {key: {"value": string, "secret": bool}}, set on the stack
// before the step; a null value removes the key). It prints one JSON line on stdout: the step, the engine's
// change counts, and the stack outputs (a secret output as {"secret": true, "sha256": ...}, never its value);
// the engine's own output goes to stderr. The program the engine runs is the same in every step, and the same
// as test/e2e/programs/python-auto/lifecycle.py's:
//
//	orders     WebhookEndpoint on the default provider (stack config webhooks:baseUrl, webhooks:accessToken),
//	           webhookUrl from config ordersUrl
//	eu, us     explicit providers (config euBaseUrl/euToken, usBaseUrl/usToken), each with an endpoint named
//	           "orders" (ordersEu, ordersUs)
//	legacy     when config legacyId is set: the endpoint with that id, imported (the import resource option)
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi-webhook-endpoints/pulumi-webhook-endpoints/sdk/go/webhooks"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

const project = "webhooks-go-auto"

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	orders, err := webhooks.NewWebhookEndpoint(ctx, "orders", &webhooks.WebhookEndpointArgs{
		WebhookUrl: pulumi.String(cfg.Require("ordersUrl")),
	})
	if err != nil {
		return err
	}
	ctx.Export("ordersId", orders.WebhookId)
	ctx.Export("ordersSecret", orders.SignSecret)
	for _, region := range []string{"eu", "us"} {
		provider, err := webhooks.NewProvider(ctx, region, &webhooks.ProviderArgs{
			BaseUrl:     pulumi.StringPtr(cfg.Require(region + "BaseUrl")),
			AccessToken: cfg.RequireSecret(region + "Token"),
		})
		if err != nil {
			return err
		}
		endpoint, err := webhooks.NewWebhookEndpoint(ctx, "orders"+map[string]string{"eu": "Eu", "us": "Us"}[region], &webhooks.WebhookEndpointArgs{
			WebhookName: pulumi.StringPtr("orders"),
			WebhookUrl:  pulumi.String("https://example.com/hooks/" + region),
		}, pulumi.Provider(provider))
		if err != nil {
			return err
		}
		ctx.Export(region+"Id", endpoint.WebhookId)
	}
	if legacyID := cfg.Get("legacyId"); legacyID != "" {
		legacy, err := webhooks.NewWebhookEndpoint(ctx, "legacy", &webhooks.WebhookEndpointArgs{
			WebhookName: pulumi.StringPtr("legacy"),
			WebhookUrl:  pulumi.String("https://example.com/hooks/legacy"),
		}, pulumi.Import(pulumi.ID(legacyID)))
		if err != nil {
			return err
		}
		ctx.Export("legacyId", legacy.WebhookId)
		ctx.Export("legacySecret", legacy.SignSecret)
	}
	return nil
}

type configEntry struct {
	Value  *string `json:"value"`
	Secret bool    `json:"secret"`
}

type report struct {
	Step    string                    `json:"step"`
	Changes map[string]int            `json:"changes"`
	Outputs map[string]map[string]any `json:"outputs"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "lifecycle: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: lifecycle up|preview|refresh|destroy")
	}
	ctx := context.Background()
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", project, program,
		auto.WorkDir(os.Getenv("LIFECYCLE_WORK_DIR")),
		auto.SecretsProvider("passphrase"),
		auto.Project(workspace.Project{
			Name:    project,
			Runtime: workspace.NewProjectRuntimeInfo("go", nil),
			Backend: &workspace.ProjectBackend{URL: os.Getenv("PULUMI_BACKEND_URL")},
		}))
	if err != nil {
		return err
	}
	var entries map[string]configEntry
	if err := json.Unmarshal([]byte(os.Getenv("LIFECYCLE_CONFIG")), &entries); err != nil {
		return fmt.Errorf("LIFECYCLE_CONFIG: %w", err)
	}
	for key, entry := range entries {
		if entry.Value == nil {
			err = stack.RemoveConfig(ctx, key)
		} else {
			err = stack.SetConfig(ctx, key, auto.ConfigValue{Value: *entry.Value, Secret: entry.Secret})
		}
		if err != nil {
			return err
		}
	}

	out := report{Step: args[0], Changes: map[string]int{}}
	var changes *map[string]int
	switch args[0] {
	case "up":
		var res auto.UpResult
		res, err = stack.Up(ctx, optup.ProgressStreams(os.Stderr))
		changes = res.Summary.ResourceChanges
	case "preview":
		var res auto.PreviewResult
		res, err = stack.Preview(ctx, optpreview.ExpectNoChanges(), optpreview.ProgressStreams(os.Stderr))
		for op, n := range res.ChangeSummary {
			out.Changes[string(op)] = n
		}
	case "refresh":
		var res auto.RefreshResult
		res, err = stack.Refresh(ctx, optrefresh.ProgressStreams(os.Stderr))
		changes = res.Summary.ResourceChanges
	case "destroy":
		var res auto.DestroyResult
		res, err = stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		changes = res.Summary.ResourceChanges
	default:
		return fmt.Errorf("unknown step %q", args[0])
	}
	if err != nil {
		return err
	}
	if changes != nil {
		out.Changes = *changes
	}
	outputs, err := stack.Outputs(ctx)
	if err != nil {
		return err
	}
	out.Outputs = map[string]map[string]any{}
	for name, output := range outputs {
		if output.Secret {
			sum := sha256.Sum256([]byte(fmt.Sprint(output.Value)))
			out.Outputs[name] = map[string]any{"secret": true, "sha256": hex.EncodeToString(sum[:])}
		} else {
			out.Outputs[name] = map[string]any{"secret": false, "value": output.Value}
		}
	}
	line, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}
