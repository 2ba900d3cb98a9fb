// Lists every account, campaign and insight row of the API with the client
// generated from the served OpenAPI document (openapi-typescript types,
// openapi-fetch runtime) and prints them as JSON, field by field, for
// genclients_test.go to compare with the Go SDK's values.
//
// Environment: SVC_BASE_URL ({site}/api/v1/developer), SVC_API_KEY, and
// optionally FROM and TO (the insight range, YYYY-MM-DD; default: the
// service's, the last 30 days).
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];

function env(name: string): string {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set`);
  }
  return v;
}

const client = createClient<paths>({
  baseUrl: env("SVC_BASE_URL"),
  headers: { Authorization: `Bearer ${env("SVC_API_KEY")}` },
});

type Page<T> = { data: T[]; meta: Schemas["Meta"] };

// all follows meta.nextOffset until it is null.
async function all<T>(name: string, get: (offset: number) => Promise<{ data?: Page<T>; error?: unknown; response: Response }>): Promise<T[]> {
  const rows: T[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const { data, error, response } = await get(offset);
    if (error !== undefined || data === undefined) {
      throw new Error(`GET ${name} at offset ${offset}: ${response.status} ${JSON.stringify(error)}`);
    }
    rows.push(...data.data);
    offset = data.meta.nextOffset;
  }
  return rows;
}

const accounts = await all<Schemas["Account"]>("/accounts", (offset) =>
  client.GET("/accounts", { params: { query: { limit: 100, offset } } }));
const campaigns = await all<Schemas["Campaign"]>("/campaigns", (offset) =>
  client.GET("/campaigns", { params: { query: { limit: 100, offset } } }));
const range = { from: process.env.FROM || undefined, to: process.env.TO || undefined };
const insights = await all<Schemas["Insight"]>("/insights", (offset) =>
  client.GET("/insights", { params: { query: { limit: 100, offset, ...range } } }));

// Every field by name, so that the compiler checks each against the
// generated types.
const out = {
  accounts: accounts.map((a) => ({
    id: a.id, accountName: a.accountName, currency: a.currency, timezone: a.timezone,
    isActive: a.isActive, lastSyncAt: a.lastSyncAt,
  })),
  campaigns: campaigns.map((c) => ({
    id: c.id, platformAdAccountId: c.platformAdAccountId, name: c.name, objective: c.objective,
    status: c.status, effectiveStatus: c.effectiveStatus, dailyBudget: c.dailyBudget,
    lifetimeBudget: c.lifetimeBudget, syncedAt: c.syncedAt,
    account: { currency: c.account.currency, timezone: c.account.timezone },
  })),
  insights: insights.map((i) => ({
    id: i.id, platformAdAccountId: i.platformAdAccountId, attributionWindow: i.attributionWindow,
    campaignId: i.campaignId, date: i.date, syncedAt: i.syncedAt,
    account: { currency: i.account.currency, timezone: i.account.timezone },
    purchaseMeasurement: i.purchaseMeasurement, spend: i.spend, ctr: i.ctr, cpc: i.cpc, cpm: i.cpm,
    impressions: i.impressions, reach: i.reach, clicks: i.clicks,
    purchases: i.purchases, purchaseValue: i.purchaseValue, roas: i.roas,
  })),
};
process.stdout.write(JSON.stringify(out) + "\n");
