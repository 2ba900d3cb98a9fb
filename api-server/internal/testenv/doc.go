// Package testenv builds complete api-server test environments on real
// databases (dbtest's PostgreSQL schema or SQLite file) and a real Redis:
// migrated, loaded with a fixture snapshot full of canary values, with keys.
//
// Files:
//
//   - testenv.go: RedisURL and Namespace (a test's own Redis keys),
//     Migrate, the fixture snapshot (Fixture, Seed, Load) and a TCP Proxy
//     that a test can stall;
//   - rediscluster.go: a Redis Cluster started for the tests that need one.
package testenv
