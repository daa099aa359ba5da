// Examples are type-checked by tsconfig.examples.json (they import the package by name).
// Lint runs with type information so floating promises and unsafe any are caught: an unhandled
// rejection in the provider host kills every resource operation in flight.
// The JavaScript under bench/ and scripts/ (the harness, the benchmark, the stand-in language host)
// is linted with the same rules: tsconfig.json type-checks it from its JSDoc (checkJs).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { SRC_LAYERS } from "./eslint.layers.mjs";

/** The stand-in language host's executable: no extension, so outside the TypeScript program; it only requires language-host.cjs. */
const LANGUAGE_HOST_EXECUTABLE = "scripts/engine/pulumi-language-nodejs";

export default tseslint.config(
  {
    ignores: [
      // Generated from the native provider's schema (scripts/sdk-check.sh compiles and checks it).
      "sdk/**",
      "examples/**",
      "dist/**",
      "dist-check/**",
      ".stryker-tmp/**",
      "reports/**",
      "node_modules/**",
      "examples/**/node_modules/**",
      "examples/**/bin/**",
      ".e2e/**",
      ".demo/**",
      "**/*.js",
      "**/*.mjs",
      "**/*.cjs",
      "!bench/**/*.js",
      "!bench/**/*.mjs",
      "!scripts/**/*.mjs",
      "!scripts/**/*.cjs",
      // The stored provider text's source: plain CommonJS so that it is minified as written.
      "!src/dynamic/stored-provider.js",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/only-throw-error": "error",
    },
  },
  ...SRC_LAYERS,
  {
    // The product's code reads in named steps: a function longer than this is split into phases
    // (docs/development.md, "Where things live"). Lines of comment and blank lines do not count.
    files: ["src/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
      "max-len": [
        "error",
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
        },
      ],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    files: ["**/*.js", "**/*.cjs", "**/*.mjs"],
    rules: {
      // tsc checks every name in these files (checkJs), as it does in TypeScript.
      "no-undef": "off",
    },
  },
  {
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: {
      // CommonJS loads its dependencies with require().
      "@typescript-eslint/no-require-imports": "off",
    },
  },
  {
    files: [LANGUAGE_HOST_EXECUTABLE],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: "commonjs",
      globals: { require: "readonly" },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, "@typescript-eslint/no-require-imports": "off" },
  },
);
