-- summary_by_account: summary.sql for the rows of account ?6.
-- ?1 organization, ?2 from, ?3 to, ?4 level, ?5 groupBy, ?6 account id.
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
WHERE organization_id = ?1 AND account_id = ?6 AND date >= ?2 AND date <= ?3
  AND (campaign_id IS NOT NULL) = (?4 = 'campaign')
ORDER BY 1, 2, 3, 4, 5
