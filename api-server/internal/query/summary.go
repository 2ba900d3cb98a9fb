package query

import "net/url"

// The levels and groupings of GET /insights/summary (openapi.yaml,
// readInsightSummary).
const (
	LevelAccount  = "account"
	LevelCampaign = "campaign"

	GroupTotal    = "total"
	GroupAccount  = "account"
	GroupCampaign = "campaign"
	GroupDay      = "day"
	GroupWeek     = "week"
	GroupMonth    = "month"
)

// The messages of the summary's own parameters; sdk-go/svctest holds the
// same texts and e2e checks that the two agree.
const (
	msgLevelRequired       = "level is required: account or campaign"
	msgLevelInvalid        = "level must be account or campaign"
	msgGroupByInvalid      = "groupBy must be one of total, account, campaign, day, week, month, account,day, campaign,day"
	msgGroupByCampaignOnly = "groupBy campaign needs level campaign: account-level rows have no campaign"
)

// summary checks level (required) and groupBy (default total) into p,
// after accountId and before the dates. A repeated parameter was reported
// already and is not read.
func summary(p *Params, values url.Values, problems []string) []string {
	p.GroupBy = GroupTotal
	level, ok := values["level"]
	switch {
	case !ok:
		problems = append(problems, msgLevelRequired)
	case len(level) != 1: // repeated
	case level[0] == LevelAccount || level[0] == LevelCampaign:
		p.Level = level[0]
	default:
		problems = append(problems, msgLevelInvalid)
	}
	if g, ok := values["groupBy"]; ok && len(g) == 1 {
		switch g[0] {
		case GroupTotal, GroupAccount, GroupCampaign, GroupDay, GroupWeek, GroupMonth, GroupAccountDay, GroupCampaignDay:
			p.GroupBy = g[0]
		default:
			problems = append(problems, msgGroupByInvalid)
		}
	}
	if (p.GroupBy == GroupCampaign || p.GroupBy == GroupCampaignDay) && p.Level == LevelAccount {
		problems = append(problems, msgGroupByCampaignOnly)
	}
	return problems
}
