import type { ServerResponse } from "node:http";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  WebhookApiError,
  WebhookEndpointExistsError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  WebhookRequestRefusedError,
  WebhooksClient,
} from "../../src/client";
import { cleanServiceText, quoteServiceText, redact } from "../../src/text/redact";
import { jsonShapeProblem } from "../../src/client/responses";
import { ProviderError } from "../../src/core/errors";
import { escapedSplits, readsSecret } from "../support/as-read";
import { TOKEN, captureError, everythingVisible, rawServer } from "../support/helpers";

/**
 * Token and secret leaks, memory and message bounds, checked against the client's promises
 * (docs/client.md, "Redaction" and "Bounds on what a server can make the client read"):
 * A. the access token never reaches anything the client returns (records included);
 * B. a signing secret never appears in an error message built from service text;
 * C. a body of a few MB cannot make a list hold hundreds of MB, and `maxScanBytes` caps bytes;
 * D. every error message built from service text is at most 2 KB (UTF-8 bytes, not characters);
 * E. a token split by a character that renders as nothing does not come back visually whole.
 */

const TRACE = "0123456789abcdef0123456789abcdef";
type Server = Awaited<ReturnType<typeof rawServer>>;
let server: Server | undefined;
let client: WebhooksClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function start(
  handler: Parameters<typeof rawServer>[0],
  extra: Partial<ConstructorParameters<typeof WebhooksClient>[0]> = {},
): Promise<WebhooksClient> {
  server = await rawServer(handler);
  client = new WebhooksClient({
    baseUrl: server.url,
    accessToken: TOKEN,
    maxRetries: 0,
    retryBaseDelayMs: 1,
    createSettleMs: 0,
    ...extra,
  });
  return client;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

const isCreate = (url: string | undefined): boolean => url?.endsWith("/create") === true;

function record(id: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    webhook_id: id,
    webhook_name: `hook-${id}`,
    webhook_url: `https://example.com/hooks/${id}`,
    sign_secret: `whsec_${id}_9f8e7d6c5b4a39281706`,
    creator_id: 7,
    creator_name: "alice",
    create_time: 1_700_000_000_000,
    operator_id: 7,
    operator_name: "alice",
    operate_time: 1_700_000_000_000,
    ...fields,
  };
}

function page(records: unknown[], extra: Record<string, unknown> = {}): unknown {
  return { code: "200", msg: "SUCCESS", trace_id: TRACE, data: { data: records, ...extra } };
}

/** Characters that render as nothing (or as a blank) in a terminal or a log viewer. */
const INVISIBLE = [
  "\u200b",
  "\u034f",
  "\u115f",
  "\u3164",
  "\uffa0",
  "\u17b4",
  "\ufe0f",
  "\u{E0020}",
  "\u{E0101}",
  "\u{1D173}",
  "\u{1D17A}",
  "\u2028",
  "\u2029",
];
const withoutInvisible = (text: string): string => INVISIBLE.reduce((out, c) => out.split(c).join(""), text);
const utf8 = (text: string): number => Buffer.byteLength(text, "utf8");
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("A: the token never reaches the records the client returns", () => {
  it("list: principal names built from the token (whole or split by an invisible character) come back redacted", async () => {
    const c = await start((_req, _body, res) =>
      send(
        res,
        200,
        page([
          record(1, {
            creator_name: `key ${TOKEN}`,
            operator_name: `key ${TOKEN.slice(0, 9)}\u200b${TOKEN.slice(9)}`,
          }),
          record(2, { creator_name: "bob" }),
        ]),
      ),
    );
    const { records } = await c.list();
    const [first, second] = records;
    expect(withoutInvisible(JSON.stringify(records))).not.toContain(TOKEN);
    expect(first?.creatorName).toBe("key [REDACTED]");
    expect(first?.operatorName).toBe("key [REDACTED]");
    // Everything else as stored: the name and URL are compared with declared values, the secret is the record's own.
    expect(first).toMatchObject({
      webhookName: "hook-1",
      webhookUrl: "https://example.com/hooks/1",
      signSecret: "whsec_1_9f8e7d6c5b4a39281706",
    });
    expect(second?.creatorName).toBe("bob");
  });

  it("create: the answered record's principal names are redacted too", async () => {
    const c = await start((req, _body, res) => {
      if (!isCreate(req.url)) return send(res, 200, page([]));
      return send(res, 200, {
        code: "200",
        msg: "SUCCESS",
        trace_id: TRACE,
        data: record(9, {
          webhook_name: "orders",
          webhook_url: "https://example.com/orders",
          creator_name: `key ${TOKEN}`,
          operator_name: TOKEN,
        }),
      });
    });
    const result = await c.create({ webhookName: "orders", webhookUrl: "https://example.com/orders" });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(result.record.creatorName).toBe("key [REDACTED]");
  });
});

describe("B: a signing secret never appears in an error message built from service text", () => {
  it("a create refusal quoting, in free text, a record the pre-create listing returned", async () => {
    const secret = "whsec_e4ce97db43f72480e89cd382489072b3";
    const existing = record(5, {
      webhook_name: "orders",
      webhook_url: "https://other.example.org/hook",
      sign_secret: secret,
    });
    // Its listing says it is complete (an empty cursor): the record is all there is.
    const c = await start((req, _body, res) => {
      if (!isCreate(req.url)) return send(res, 200, page([existing], { cursor: "" }));
      return send(res, 409, {
        code: "409",
        msg: `name orders taken by endpoint 5 (secret ${secret}, url https://other.example.org/hook)`,
        trace_id: TRACE,
      });
    });
    const error = await captureError(
      c.create({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" }),
    );
    expect(error).toBeInstanceOf(WebhookRequestRefusedError);
    expect(everythingVisible(error)).not.toContain(secret);
    expect((error as WebhookRequestRefusedError).msg).toContain("[REDACTED]");
  });

  it("any sign_secret field quoted in service text, in JSON, escaped JSON, key=value or camelCase form", async () => {
    const secrets = ["whsec_json111111", "whsec_escaped2222", "whsec_query3333", "whsec_camel4444"];
    const msg = `conflict: ${JSON.stringify({ sign_secret: secrets[0] })} ${JSON.stringify(JSON.stringify({ webhook_id: 3, sign_secret: secrets[1] }))} sign_secret=${secrets[2]}&x=1 {signSecret: '${secrets[3]}'}`;
    const c = await start((_req, _body, res) => send(res, 400, { code: "400", msg, trace_id: TRACE }));
    const error = await captureError(c.list());
    expect(error).toBeInstanceOf(WebhookRequestRefusedError);
    const visible = everythingVisible(error);
    for (const secret of secrets) expect(visible).not.toContain(secret);
    expect((error as Error).message).toContain("conflict");
  });
});

describe("a sign_secret field in the other forms a service may quote a record in", () => {
  const secret = "whsec_field5f0c2b7e9a";
  it.each([
    ["HTML-escaped JSON", `&quot;sign_secret&quot;:&quot;${secret}&quot;`],
    ["URL-encoded JSON", encodeURIComponent(JSON.stringify({ sign_secret: secret }))],
    ["JSON with \\u0022 quotes", `\\u0022sign_secret\\u0022:\\u0022${secret}\\u0022`],
    ["XML", `<sign_secret>${secret}</sign_secret>`],
    ["an arrow", `'sign_secret' => '${secret}'`],
    ["an array", `"sign_secret": ["${secret}"]`],
  ])("%s", (_what, quoted) => {
    const shown = cleanServiceText(`conflict with ${quoted} here`, [TOKEN], 2000);
    expect(readsSecret(shown, secret), shown).toBe(false);
    expect(shown).toContain("[REDACTED]");
    expect(shown).toMatch(/^conflict with .* here$/);
  });

  it.each([
    ["XML", `<sign_secret>${secret}</sign_secret>`],
    ["an arrow", `'sign_secret' => '${secret}'`],
    ["an array", `"sign_secret": ["${secret}"]`],
    ["a tab", `sign_secret:\t${secret}`.replace("\t", " ")],
  ])("%s: only the value is replaced, the text around it is kept", (_what, quoted) => {
    expect(cleanServiceText(`conflict with ${quoted} here`, [TOKEN], 2000)).toBe(
      `conflict with ${quoted.replace(secret, "[REDACTED]")} here`,
    );
  });
});

describe("C: memory stays bounded whatever the body's shape", () => {
  it("a body of one object with a great many short members is refused before it is parsed", async () => {
    const members = Array.from({ length: 250_000 }, (_, i) => `"k${i}":0`).join(",");
    const body = `{"code":"200","msg":"SUCCESS","trace_id":"${TRACE}","data":{"data":[],"junk":{${members}}}}`;
    const c = await start((_req, _body, res) => send(res, 200, body));
    const error = await captureError(c.list());
    expect(error).toBeInstanceOf(WebhookInvalidResponseError);
    expect((error as Error).message).toMatch(/values/);
  });

  it("an array of a great many tiny elements is refused too; a full page at the largest page size is not", () => {
    expect(jsonShapeProblem(`{"data":[${"0,".repeat(300_000)}0]}`)).toMatch(/values/);
    const full = JSON.stringify(
      page(
        Array.from({ length: 10_000 }, (_, i) => record(i + 1)),
        { cursor: "next" },
      ),
    );
    expect(jsonShapeProblem(full)).toBeUndefined();
  });

  it("maxScanBytes counts the bytes of the bodies (UTF-8), not UTF-16 units", async () => {
    let served = 0;
    const c = await start(
      (_req, _body, res) => {
        served++;
        // About 12 KB of UTF-8 per page, 4 K UTF-16 units.
        send(res, 200, page([record(served, { creator_name: "中".repeat(4000) })], { cursor: `c${served}` }));
      },
      { maxScanBytes: 40_000 },
    );
    const error = await captureError(c.scan());
    expect(error).toBeInstanceOf(WebhookPagingError);
    // 40,000 bytes are past after the fourth page of ~12 KB (counting units, it took ten).
    expect(served).toBeLessThanOrEqual(4);
  });
});

describe("D: an error message built from service text is at most 2 KB in UTF-8", () => {
  const texts = { cjk: "中".repeat(1500), emoji: "😀".repeat(1000), mixed: `a${"é中😀".repeat(600)}` };

  for (const [label, text] of Object.entries(texts)) {
    it(`client and provider errors, ${label} text: at most 2,048 bytes, cut at a code point`, () => {
      for (const message of [
        new WebhookApiError(text).message,
        new WebhookEndpointExistsError(text, { existingIds: [] }).message,
        new ProviderError(`create failed: ${text}`).message,
      ]) {
        expect(utf8(message)).toBeLessThanOrEqual(2048);
        expect(message.endsWith("…")).toBe(true);
        expect(loneSurrogate.test(message)).toBe(false);
      }
    });
  }

  // docs/client.md: "Quoted service text is capped at 300 bytes". JSON's quoting doubles a
  // backslash or a quote, so a text of them is held to the cap as quoted, not before.
  it.each([
    ["backslashes", "\\".repeat(1000)],
    ["quotes", '"'.repeat(1000)],
    ["a backslash after each letter", "a\\".repeat(600)],
    ["backslashes then CJK", `${"\\".repeat(200)}${"中".repeat(200)}`],
    ["escaped hidden characters", "\\u200b".repeat(200)],
  ])("a quoted piece of %s: at most 300 bytes between its quotes, cut with …", (_label, text) => {
    const quoted = quoteServiceText(text, [TOKEN]);
    expect(quoted.startsWith('"') && quoted.endsWith('"')).toBe(true);
    expect(utf8(quoted) - 2).toBeLessThanOrEqual(300);
    // Not cut to nothing: a cap of 300 leaves room for at least a hundred characters of any text.
    expect(utf8(quoted)).toBeGreaterThan(100);
    expect(quoted.endsWith('…"')).toBe(true);
  });

  it("a quoted piece withheld whole (more readings than are searched) is still a quoted piece", () => {
    // Escapes of every kind nested in every order: its quoting reads in more than 128 ways.
    const text =
      'u&#\\\\005c-name&#ux5cx5c%#92;%25&#&"\\\\x5c005c-name#92;x5c"sekrit\\\\\\%u005c5C%&amp;%&amp;&#92;' +
      '\\\\%25&#92;-name"x5c5C\\25&&005c-name\\\\5C&amp;005c';
    expect(quoteServiceText(text, ["sekrit-name"])).toBe('"[REDACTED]"');
    // Where no secret is sought, the same text is quoted as it is (within the cap).
    expect(JSON.parse(quoteServiceText(text))).toBe(text);
  });

  it("a refusal whose msg and code are long CJK text", async () => {
    const c = await start((_req, _body, res) =>
      send(res, 400, { code: "中".repeat(200), msg: "拒".repeat(5000), trace_id: TRACE }),
    );
    const error = (await captureError(c.list())) as WebhookRequestRefusedError;
    expect(utf8(error.message)).toBeLessThanOrEqual(2048);
    expect(loneSurrogate.test(error.message)).toBe(false);
  });

  it("an existing-endpoint refusal naming many endpoints whose principals have CJK names", async () => {
    const url = "https://example.com/hooks/orders";
    const existing = Array.from({ length: 12 }, (_, i) =>
      record(i + 1, {
        webhook_name: "orders",
        webhook_url: i % 2 ? `${url}/` : url,
        creator_name: "中".repeat(80),
      }),
    );
    const c = await start((_req, _body, res) => send(res, 200, page(existing)));
    const error = await captureError(c.create({ webhookName: "orders", webhookUrl: url }));
    expect(error).toBeInstanceOf(WebhookEndpointExistsError);
    expect(utf8((error as Error).message)).toBeLessThanOrEqual(2048);
    expect(loneSurrogate.test((error as Error).message)).toBe(false);
  });
});

describe("E: a token split by an invisible character does not come back visually whole", () => {
  for (const separator of INVISIBLE) {
    const label = `U+${separator.codePointAt(0)?.toString(16).toUpperCase()}`;
    it(`split by ${label}`, async () => {
      const c = await start((_req, _body, res) =>
        send(res, 400, {
          code: "400",
          msg: `token ${TOKEN.slice(0, 8)}${separator}${TOKEN.slice(8)} rejected`,
          trace_id: TRACE,
        }),
      );
      const error = await captureError(c.list());
      const message = (error as Error).message;
      expect(withoutInvisible(everythingVisible(error))).not.toContain(TOKEN);
      expect(message).toContain("[REDACTED]");
      expect(message).not.toMatch(/[\u2028\u2029]/);
    });
  }

  it("an invisible astral character across the text's 4,096-unit reading chunks is still removed", () => {
    const text = `${"a".repeat(4095 - 8)}${TOKEN.slice(0, 8)}\u{E0020}${TOKEN.slice(8)} rejected`;
    const clean = cleanServiceText(text, [TOKEN], 10_000);
    expect(withoutInvisible(clean)).not.toContain(TOKEN);
    expect(clean).toContain("[REDACTED]");
  });
});

describe("G: a token split by an escape of a hidden character is still the token to its reader", () => {
  for (const [what, spelled] of escapedSplits(TOKEN)) {
    it(`${what}: in a record's principal name, in an error message, in quoted service text`, async () => {
      expect(readsSecret(spelled, TOKEN)).toBe(true);
      let calls = 0;
      const c = await start((_req, _body, res) =>
        calls++ === 0
          ? send(res, 200, page([record(1, { creator_name: `key ${spelled}` })]))
          : send(res, 400, { code: "400", msg: `token ${spelled} rejected`, trace_id: TRACE }),
      );
      const { records } = await c.list();
      expect(readsSecret(records[0]!.creatorName, TOKEN)).toBe(false);
      expect(records[0]!.creatorName).toContain("[REDACTED]");
      const error = await captureError(c.list());
      expect(readsSecret(everythingVisible(error), TOKEN)).toBe(false);
      expect((error as Error).message).toContain("[REDACTED]");
      expect(readsSecret(quoteServiceText(`x ${spelled} y`, [TOKEN]), TOKEN)).toBe(false);
      expect(readsSecret(cleanServiceText(`x ${spelled} y`, [TOKEN], 2000), TOKEN)).toBe(false);
    });
  }
});

describe("H: a cap never cuts an escape into a character of the token", () => {
  // The token's last character written `&#NNN;` where NNN's first digits are its code: cut after
  // them, `&#NN` alone is that character to a page's reader, and the token is whole.
  const last = TOKEN.charCodeAt(TOKEN.length - 1);
  const spelled = `${TOKEN.slice(0, -1)}&#${last}5; and more`;
  it("at the 300-byte quote cap", async () => {
    expect(readsSecret(spelled, TOKEN)).toBe(false);
    for (let pad = 240; pad < 300; pad++) {
      const quoted = cleanServiceText(`${"x".repeat(pad)}${spelled}`, [TOKEN], 300);
      expect(readsSecret(quoted, TOKEN), `pad ${pad}: ${quoted.slice(-40)}`).toBe(false);
    }
    const c = await start((_req, _body, res) =>
      send(res, 400, {
        code: "400",
        msg: `${"x".repeat(297 - TOKEN.length - String(last).length - 1)}${spelled}`,
        trace_id: TRACE,
      }),
    );
    expect(readsSecret(everythingVisible(await captureError(c.list())), TOKEN)).toBe(false);
  });

  it("a service's own words after a sign_secret field are left as they are, there and elsewhere", () => {
    for (const message of [
      "invalid sign_secret: must be at least 32 characters",
      "field signSecret: too short (min 16)",
      "sign_secret=required",
      "sign_secret: missing; webhook_name is missing too, and the url is missing",
    ])
      expect(cleanServiceText(message, [TOKEN], 2000)).toBe(message);
  });

  it("a token written in escapes between angle brackets, which one reading takes for a tag", () => {
    for (const [what, spelled] of escapedSplits(TOKEN).slice(0, 7))
      expect(redact(`<${spelled}>`, [TOKEN]), what).toBe("<[REDACTED]>");
  });

  it("a long run of %25 is read without overflowing the stack", () => {
    const text = `%${"25".repeat(150_000)}`;
    expect(() => redact(text, [TOKEN])).not.toThrow();
  });

  it("a cut keeps ordinary text that follows an ampersand (it leaves out an escape, not a word)", () => {
    const shown = cleanServiceText(`bad filter near &${"deadbeef".repeat(60)}`, [TOKEN], 300);
    expect(Buffer.byteLength(shown)).toBeGreaterThan(250);
  });

  it("at the 2,000-byte message cap, where the message is cut with no secret known", () => {
    for (let pad = 1940; pad < 2000; pad++) {
      const error = new WebhookApiError(`${"y".repeat(pad)}${spelled}`, { operation: "list", status: 500 });
      expect(readsSecret(error.message, TOKEN), `pad ${pad}`).toBe(false);
    }
  });
});

describe("I: a token with the shape of a trace id, or that JSON's quoting rebuilds", () => {
  it("a 32-hex token the service answers as its trace id is not returned as the trace id", async () => {
    const hexToken = "9f86d081884c7d659a2feaa0c55ad015";
    const c = await start(
      (_req, _body, res) => send(res, 200, { ...(page([]) as object), trace_id: hexToken }),
      { accessToken: hexToken },
    );
    const listed = await c.list();
    expect(JSON.stringify(listed).toLowerCase()).not.toContain(hexToken);
  });

  it("a token holding a quote: the service's msg quoted in the message does not write it out", async () => {
    const quoteToken = 'tk_9\\"Zq71aa_secret';
    const c = await start(
      (_req, _body, res) =>
        send(res, 401, { code: "401", msg: 'token tk_9"Zq71aa_secret expired', trace_id: TRACE }),
      { accessToken: quoteToken },
    );
    const error = await captureError(c.list());
    expect(everythingVisible(error)).not.toContain(quoteToken);
  });

  it('a token holding "fj", written with the page\'s ligature &fjlig;', async () => {
    const fjToken = "tok_fj9ZqkXw2Lm_secret";
    const c = await start(
      (_req, _body, res) =>
        send(res, 401, { code: "401", msg: "token tok_&fjlig;9ZqkXw2Lm_secret expired", trace_id: TRACE }),
      { accessToken: fjToken },
    );
    const error = await captureError(c.list());
    expect(readsSecret(everythingVisible(error), fjToken)).toBe(false);
    expect((error as Error).message).toContain("[REDACTED]");
  });

  it("a token holding a backslash: util.inspect of the error, which escapes it, does not write it out", async () => {
    const slashToken = "tk_9\\\\Zq71aa_secret";
    const c = await start(
      (_req, _body, res) =>
        send(res, 401, { code: "401", msg: "token tk_9\\Zq71aa_secret expired", trace_id: TRACE }),
      { accessToken: slashToken },
    );
    const error = await captureError(c.list());
    expect(inspect(error)).not.toContain(slashToken);
    expect(JSON.stringify(error)).not.toContain(slashToken);
  });
});

describe("F: a token in another letter case, or rebuilt by JSON's escaping, is still redacted", () => {
  it("redacts a token upper- or lower-cased, wherever it sits", () => {
    const token = "tok_Secret123";
    for (const text of ["TOK_SECRET123", "name-tok_secret123-x", "Tok_sEcReT123 and tok_Secret123"]) {
      const out = redact(text, [token]);
      expect(out.toLowerCase()).not.toContain(token.toLowerCase());
      expect(out).toContain("[REDACTED]");
    }
    // Characters that mean something in a regular expression are taken literally.
    expect(redact("a.B*c(D)|E", ["A.b*C(d)|e"])).toBe("[REDACTED]");
    expect(redact("aXbYc", ["a.b.c"])).toBe("aXbYc");
    // A token of digits only is a credential wherever a reader can copy it from, inside a longer number too.
    expect(redact("id 8123456789", ["12345678"])).toBe("id 8[REDACTED]9");
    // A record's principal name too (it reaches state and outputs), and nothing else changes.
    expect(redact("key TOK_SECRET123", [token])).toBe("key [REDACTED]");
    expect(redact("ops-team", [token])).toBe("ops-team");
  });

  it("a quoted name cannot rebuild a token that holds a quote or a backslash", () => {
    for (const [token, name] of [
      ['ab\\"cd_secret', 'ab"cd_secret'],
      ["ab\\\\cd_secret", "ab\\cd_secret"],
    ] as const) {
      expect(quoteServiceText(name, [token])).not.toContain(token);
    }
  });
});

describe("J: a cut shows no start of a token whose rest lies past all that is read", () => {
  // The token's characters spread apart by more escaped hidden characters than a cut text is read
  // past its cap: what is shown ends in the token's first characters, and nothing redacts them.
  // One layer deep, and written one layer deeper: a cut may end inside the outer escape
  // (`&amp;#82`), which a reader of one layer shows as text and a reader of two as nothing.
  const hiddenEscapes = [
    "%E2%80%8B",
    "%25E2%2580%258B",
    "&#8203;",
    "&ZeroWidthSpace;",
    "&shy;",
    "&amp;ZeroWidthSpace;",
    "&amp;#8203;",
    "&#37;E2&#37;80&#37;8B",
    "&percnt;E2&percnt;80&percnt;8B",
    "%2525252525E2%2525252525" + "80%25252525258B",
    "&#x0000000000000200B;",
    "\\u0025E2\\u002580\\u00258B",
  ];
  // Markup a page renders as nothing, longer than the text is read past its cap.
  const hidingMarkup = [`<!--${"x".repeat(12_000)}-->`, `<b title="${"x".repeat(12_000)}">`];
  for (const cap of [300, 2000]) {
    for (const [padding, times] of [
      ...hiddenEscapes.map((escape) => [escape, 5000] as const),
      ...hidingMarkup.map((markup) => [markup, 1] as const),
    ]) {
      it(`at a cap of ${cap} bytes, the token split by ${times} × ${padding.slice(0, 24)}`, () => {
        for (const shownChars of [4, 8, TOKEN.length - 1]) {
          const spread = `${TOKEN.slice(0, shownChars)}${padding.repeat(times)}${TOKEN.slice(shownChars)}`;
          expect(readsSecret(spread, TOKEN), "the token is whole to its reader").toBe(true);
          const shown = cleanServiceText(`rejected ${spread} here`, [TOKEN], cap);
          expect(shown.startsWith("rejected "), shown.slice(0, 40)).toBe(true);
          expect(readsSecret(shown, TOKEN.slice(0, 4)), `${shownChars} shown: ${shown.slice(0, 60)}`).toBe(
            false,
          );
          expect(shown.toLowerCase(), "as it stands").not.toContain(TOKEN.slice(0, 4));
        }
      });
    }
  }

  it("a token split by markup longer than a page's reader could be thought to look is redacted whole", () => {
    for (const markup of [
      `<!--${"x".repeat(1500)}-->`,
      `<b title="${"y>".repeat(750)}">`,
      `<b${" a=''".repeat(300)}>`,
      `<b ${"'".repeat(1500)}>`,
    ]) {
      const text = `rejected ${TOKEN.slice(0, 12)}${markup}${TOKEN.slice(12)} here`;
      expect(readsSecret(text, TOKEN), "a page's reader reads the token").toBe(true);
      expect(cleanServiceText(text, [TOKEN], 2000)).toBe("rejected [REDACTED] here");
      expect(redact(text, [TOKEN])).toBe("rejected [REDACTED] here");
    }
  });

  it("a cut taken back to a token's start and then out of an escape it leaves ends in neither", () => {
    // What precedes the spread token ends in its first characters and an `&`: once the cut leaves
    // out the token's start, then the `&`, it ends in those first characters again.
    const spread = `${TOKEN.slice(0, 8)}${"&#8203;".repeat(5000)}${TOKEN.slice(8)}`;
    for (const cap of [300, 2000]) {
      const shown = cleanServiceText(`rejected ${TOKEN.slice(0, 8)}&${spread}`, [TOKEN], cap);
      expect(shown).toBe("rejected …");
    }
  });

  it("a cut that ends in ordinary text keeps it", () => {
    const shown = cleanServiceText(`rejected ${"word ".repeat(200)}`, [TOKEN], 300);
    expect(Buffer.byteLength(shown)).toBeGreaterThan(290);
  });
});

describe("J: a cut keeps what could start no token", () => {
  it("a cut that ends in fewer than 4 of a token's first characters keeps them", () => {
    // A tail of `t`s, for a token `tok_...`: each is the token's first character, and tells nothing of it.
    const shown = cleanServiceText(`rejected ${"t".repeat(3000)}`, [TOKEN], 300);
    expect(shown).toBe(cleanServiceText(`rejected ${"t".repeat(3000)}`, [], 300));
    expect(cleanServiceText(`data: ${"A".repeat(3000)}`, ["AbCdEfGh12345678"], 300)).toBe(
      `data: ${"A".repeat(291)}…`,
    );
    // From 4 on, the cut is taken back.
    expect(
      cleanServiceText(`rejected ${"x".repeat(284)}tok_${"&#8203;".repeat(5000)}live`, [TOKEN], 300),
    ).toBe(`rejected ${"x".repeat(284)}…`);
  });

  it("a tail of characters that start escapes loses one escape's worth only, a token known or not", () => {
    for (const tail of ["&", "%", "\\"]) {
      for (const secrets of [[], [TOKEN]]) {
        const shown = cleanServiceText(`rejected ${tail.repeat(1000)}`, secrets, 300);
        expect(shown.startsWith(`rejected ${tail.repeat(280)}`), `${tail}: ${shown.slice(0, 20)}`).toBe(true);
      }
    }
  });

  it("ordinary text, and percent escapes that start no token, at the end of a cut", () => {
    for (const tail of ["word ", "%41%42", "%E2%82%AC", "x%E2%82"]) {
      const text = `rejected ${tail.repeat(400)}`;
      const shown = cleanServiceText(text, [TOKEN], 300);
      const noneKnown = cleanServiceText(text, [], 300);
      expect(shown, tail).toBe(noneKnown);
    }
  });
});
