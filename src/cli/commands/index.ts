// The commands of `webhooks`, in the order `webhooks --help` lists them: a new command is its own
// file here, imported and named once in COMMANDS below.
import type { Command } from "../command";
import { adoptCommand } from "./adopt";
import { listCommand } from "./list";
import { orphansCommand } from "./orphans";
import { recoverCommand } from "./recover";

export const COMMANDS: readonly Command[] = [listCommand, adoptCommand, recoverCommand, orphansCommand];
