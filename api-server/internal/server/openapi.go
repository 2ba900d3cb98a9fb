package server

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

func (s *Server) openAPI(c *gin.Context) {
	if len(s.openapi) == 0 {
		s.refuse(c, http.StatusNotFound, "no OpenAPI document configured")
		return
	}
	c.Data(http.StatusOK, "application/json", s.openapi)
}
