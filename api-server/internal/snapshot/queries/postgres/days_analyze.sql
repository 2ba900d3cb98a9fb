-- Statistics of the touched days, so that the recomputations join them
-- sensibly (a few days: index lookups; every day: a hash join).
ANALYZE svc_import_days
