import { resolve } from "node:path";

/**
 * The text Pulumi stores in every WebhookEndpoint's `__provider` (twice per resource: inputs and
 * outputs) and sends in every engine call. The dynamic-provider host evaluates it as a CommonJS
 * module with an empty file name and calls its `handler()` for the provider object, so it must be
 * self-contained JavaScript. Written by hand rather than produced by Pulumi's closure serializer:
 * about 1.2 KB (with the install path it embeds) instead of 3.6 KB, a plain string rather than an Output per resource, and no function
 * parsed by the serializer in every program run.
 *
 * Each method loads the installed package when it first runs, so the text holds no token and no
 * package code, and a package upgrade reaches old resources on refresh and destroy. Where the
 * package is looked for, first usable copy wins (Node's global folders, NODE_PATH and
 * ~/.node_modules, are never consulted):
 * 1. `node_modules/pulumi-webhook-endpoints` in the provider host's working directory (the
 *    program's directory) and the directories above it: npm, Yarn with node_modules, pnpm as a
 *    direct dependency;
 * 2. pnpm's hoisted store, `node_modules/.pnpm/node_modules`, in that directory or above it: pnpm
 *    when the package is a dependency of a wrapper library;
 * 3. the directory the program itself loaded the package from (the same command, or the same
 *    checkout later), the one value the text embeds.
 * A copy whose package.json does not export `./provider`, or whose `./provider` cannot be resolved
 * inside it (not built, a foreign package.json, one without an exports map, for which Node would
 * go on to its global folders) is skipped and named in the error if nothing usable is found; the error names the package, where
 * the program runs and the commands that install it, without a stack. What is found is kept for
 * the rest of the provider host process (one per command), so the search runs once, not on every
 * engine call. An error while loading the copy found is not masked: it is the package's own.
 */
export function providerText(packageDir: string): string {
  const fallback = JSON.stringify(resolve(packageDir, "dist", "dynamic", "provider.js"));
  // Written compact (the text is stored twice per resource and sent in every engine call), one
  // statement per line here and joined without the line breaks. Names: n the package name, k the
  // per-process cache key, l loads the provider, p path, f fs, c the working directory, m
  // "node_modules", a the copies in node_modules, b those in pnpm's hoisted stores, u the unusable
  // copies found, r the file to load (the fallback until a usable copy is found), s the shim.
  return [
    `"use strict";`,
    `exports.handler=()=>{const n="pulumi-webhook-endpoints",k=Symbol.for(n+"/provider"),s={},l=()=>{`,
    `if(globalThis[k])return globalThis[k];`,
    `const p=require("path"),f=require("fs"),c=process.cwd(),m="node_modules",a=[],b=[],u=[];`,
    `for(let d=c;;d=p.dirname(d)){a.push(p.join(d,m,n));b.push(p.join(d,m,".pnpm",m,n));if(p.dirname(d)===d)break}`,
    `let r=${fallback};`,
    // Node's resolution from a directory goes on to the global folders unless the package it finds
    // there has an exports map: a copy counts only if its package.json exports ./provider, and then
    // Node resolves it inside that copy or fails (an exports target cannot leave its package).
    `for(const x of a.concat(b))if(f.existsSync(p.join(x,"package.json")))try{const j=JSON.parse(f.readFileSync(p.join(x,"package.json"),"utf8"));if(!(j&&j.exports&&j.exports["./provider"]))throw{code:"no ./provider in it"};r=require.resolve(n+"/provider",{paths:[p.dirname(p.dirname(x))]});break}catch(e){u.push(x+" ("+(e&&e.code||e)+")")}`,
    `if(!f.existsSync(r)){const e=new Error("the package "+n+", which runs this stack's WebhookEndpoint resources, is not installed where the program runs ("+c+")"+(u.length?"; copies found but unusable: "+u.join(", "):"")+". Install it in the project and run the command again: npm install "+n+" (or pnpm add "+n+", or yarn add "+n+")");e.stack=e.message;throw e}`,
    `return globalThis[k]=require(r).provider};`,
    `for(const x of"configure check diff create read update delete".split(" "))s[x]=(...a)=>l()[x](...a);return s};`,
  ].join("");
}

/** The text for the package this module belongs to (dist/dynamic/shim.js → the package's root). */
export const PROVIDER_TEXT = providerText(resolve(__dirname, "..", ".."));
