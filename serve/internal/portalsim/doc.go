// Package portalsim is assay serve's payer portal.
package portalsim
