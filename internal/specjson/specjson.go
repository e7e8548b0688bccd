package specjson

import "github.com/tidwall/gjson"

// Member returns the value of obj's member key (its last occurrence), or a
// Result that does not exist.
func Member(obj gjson.Result, key string) gjson.Result {
	var found gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			found = v
		}
		return true
	})
	return found
}

// At returns the value at keys in spec, each key read as Member reads it
// (a Result that does not exist when one is missing).
func At(spec []byte, keys ...string) gjson.Result {
	v := gjson.ParseBytes(spec)
	for _, k := range keys {
		v = Member(v, k)
	}
	return v
}

// Object returns obj's members by key, each key's last value (nil for
// anything but an object), as a map[string]json.RawMessage would hold them.
func Object(obj gjson.Result) map[string]gjson.Result {
	if !obj.IsObject() {
		return nil
	}
	out := map[string]gjson.Result{}
	obj.ForEach(func(k, v gjson.Result) bool {
		out[k.Str] = v
		return true
	})
	return out
}

// Strings returns the strings of a JSON array (nil for anything else).
func Strings(arr gjson.Result) []string {
	if !arr.IsArray() {
		return nil
	}
	out := []string{}
	arr.ForEach(func(_, v gjson.Result) bool {
		out = append(out, v.Str)
		return true
	})
	return out
}
