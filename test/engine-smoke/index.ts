// Smoke program for scripts/engine.sh: one trivial dynamic resource, written in TypeScript so that the
// ts-node path of @pulumi/pulumi/cmd/run is exercised too.
import * as pulumi from "@pulumi/pulumi";

interface SmokeOuts {
    a: number;
}

const provider: pulumi.dynamic.ResourceProvider = {
    async create(): Promise<pulumi.dynamic.CreateResult<SmokeOuts>> {
        console.log("engine-smoke: provider create called");
        return { id: "x", outs: { a: 1 } };
    },
};

class SmokeResource extends pulumi.dynamic.Resource {
    // `declare`, not `a!:`: with ES2022 class fields a plain declaration would reset the output that the
    // base constructor set to undefined.
    declare public readonly a: pulumi.Output<number>;

    constructor(name: string, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { a: undefined }, opts);
    }
}

const config = new pulumi.Config();
const thing = new SmokeResource("thing");
void pulumi.log.info("engine-smoke: program ran");

export const a = thing.a;
export const secretLength = config.requireSecret("x").apply((v) => v.length);
