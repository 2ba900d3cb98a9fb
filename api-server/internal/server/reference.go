package server

import (
	"github.com/adsnap/svc/api-server/internal/reference"
	"github.com/gin-gonic/gin"
)

// newReference builds the API reference page (package reference) from the
// OpenAPI document, served at reference.Path; none without a document.
func (s *Server) newReference(cfg Config) error {
	if len(cfg.OpenAPIJSON) == 0 {
		return nil
	}
	p, err := reference.New(cfg.OpenAPIJSON, reference.Options{SiteURL: cfg.DownloadsSiteURL})
	if err != nil {
		return err
	}
	s.reference = p
	return nil
}

// apiReference serves the reference page and its style sheet. Like the
// /developers/ site it is public and not charged to a limit: it is the
// same few kilobytes for everyone, rendered once.
func (s *Server) apiReference(c *gin.Context) { s.reference.ServeHTTP(c.Writer, c.Request) }
