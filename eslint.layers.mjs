// @ts-check
// Imported by eslint.config.mjs, and by test/docs/architecture.test.ts, which proves the rule reports what it must.

/**
 * How the folders of src/ may depend on each other (docs/development.md, "Where things live"):
 * every folder imports the client and src/text through their index, which lists what they offer
 * the rest of the package; the emulator stands for the service and depends on nothing of ours but
 * the API contract; src/api and src/text, shared by the others, depend on nothing of ours; the
 * client knows nothing of Pulumi; the core knows nothing of the faces, the CLI or the emulator; each
 * face and the CLI stand on the core and the client and know nothing of each other. Nothing
 * imports the CLI.
 * (ESLint does not merge one rule's options across config objects: each folder's list is whole.)
 */
const THROUGH_INDEX = {
  regex: "^(\\.\\.?/)+(client|text)/",
  message:
    "import the client and src/text through their index ('../client', '../text'), which lists what they offer the rest of the package; export what you need from there",
};
/** @type {import("eslint").Linter.Config[]} */
export const SRC_LAYERS = [
  { files: ["src/**"], patterns: [] },
  {
    files: ["src/emulator/**"],
    patterns: [
      {
        regex: "^\\.\\./(?!api/)",
        message:
          "the emulator depends on nothing of ours but the API contract (src/api): it stands for the service, and must not share our reading of it",
      },
    ],
  },
  {
    files: ["src/api/**", "src/text/**"],
    patterns: [
      {
        regex: "^\\.\\./",
        message: "src/api and src/text are shared by the other folders and depend on nothing of ours",
      },
    ],
  },
  {
    files: ["src/client/**"],
    patterns: [
      {
        regex: "^\\.\\./(?!api/|text$)",
        message: "the client depends on nothing of ours but src/api and src/text",
      },
      { regex: "^@pulumi/", message: "the client knows nothing of Pulumi: it is usable without it" },
    ],
  },
  {
    files: ["src/core/**"],
    patterns: [
      {
        regex: "^\\.\\./(dynamic|native|cli|emulator)(/|$)",
        message: "the core serves the faces and the CLI, and knows nothing of them or of the emulator",
      },
    ],
  },
  {
    files: ["src/dynamic/**"],
    patterns: [
      {
        regex: "^\\.\\./(native|cli|emulator)(/|$)",
        message:
          "the dynamic face stands on the core and the client: it knows nothing of the native face, the CLI or the emulator",
      },
    ],
  },
  {
    files: ["src/native/**"],
    patterns: [
      {
        regex: "^\\.\\./(dynamic|cli|emulator)(/|$)",
        message:
          "the native face stands on the core and the client: it knows nothing of the dynamic face, the CLI or the emulator",
      },
    ],
  },
  {
    files: ["src/cli/**"],
    patterns: [
      {
        regex: "^(\\.\\./)+(dynamic|native|emulator)(/|$)",
        message: "the CLI stands on the core and the client: it knows nothing of the faces or the emulator",
      },
    ],
  },
  {
    files: ["src/*.ts"],
    patterns: [
      {
        regex: "^\\./(cli|emulator)(/|$)",
        message: "the main entry exports neither the CLI (an executable) nor the emulator (its own entry)",
      },
    ],
  },
].map(({ files, patterns }) => ({
  files,
  rules: { "no-restricted-imports": ["error", { patterns: [THROUGH_INDEX, ...patterns] }] },
}));
