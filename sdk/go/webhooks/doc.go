// Webhook endpoints on a list-and-create-only API, with each endpoint's signing secret as a Pulumi secret.
package webhooks
