-- summary: the rows that GET /insights/summary totals on SQLite: the
-- organization's daily insights of level ?4 ('account': campaign_id NULL;
-- 'campaign': the others) dated ?2 to ?3 (inclusive), each with the keys of
-- its group under grouping ?5 (total, account, campaign, day, account,day,
-- campaign,day, week: the
-- ISO week's Monday, month: its first day), in the API's order of groups
-- (BINARY collation: byte order). SQLite stores decimals as TEXT and its
-- REAL's text form is not C's %.15g, so the rows are summed exactly in Go
-- (store/summary.go), group after group as they come, and the groups are
-- paged there.
-- ?1 organization, ?2 from, ?3 to (YYYY-MM-DD), ?4 level, ?5 groupBy.
SELECT
    currency,
    CASE WHEN ?5 IN ('account', 'campaign', 'account,day', 'campaign,day') THEN account_id END AS account_id,
    CASE WHEN ?5 IN ('campaign', 'campaign,day') THEN campaign_id END AS campaign_id,
    CASE ?5
        WHEN 'day' THEN date
        WHEN 'account,day' THEN date
        WHEN 'campaign,day' THEN date
        WHEN 'week' THEN date(date, '-6 days', 'weekday 1')
        WHEN 'month' THEN date(date, 'start of month')
    END AS period_start,
    date, spend, impressions, clicks, purchase_measurement, purchases, purchase_value
FROM insights_daily
WHERE organization_id = ?1 AND date >= ?2 AND date <= ?3
  AND (campaign_id IS NOT NULL) = (?4 = 'campaign')
ORDER BY 1, 2, 3, 4, 5
