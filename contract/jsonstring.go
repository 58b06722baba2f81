package contract

// AppendJSONString appends s as a JSON string as a contract writes each of
// its strings: encoding/json's escaping with SetEscapeHTML(false), so that
// other JSON ka2 writes by hand beside its contracts (the service's
// decision log) encodes text the same way, from the same code.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }
