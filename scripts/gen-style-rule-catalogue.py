#!/usr/bin/env python3
# Generates assets/style-rule-catalogue.json (read by src/customization/style-rules/rule-catalogue.ts) from the
# ConfiguredRules schema of the reference OpenAPI YAML.
# Run: python3 scripts/gen-style-rule-catalogue.py [path/to/openapi.yaml]
import json, sys, yaml
src = sys.argv[1] if len(sys.argv) > 1 else '/work/shared/spec/reference/openapi.yaml'
spec = yaml.safe_load(open(src, encoding='utf-8'))
rules = spec['components']['schemas']['ConfiguredRules']['properties']
catalogue = {cat: {rule: list(v['enum']) for rule, v in sorted(body['properties'].items())} for cat, body in sorted(rules.items())}
out = json.dumps(catalogue, ensure_ascii=False, indent=2) + '\n'
open('assets/style-rule-catalogue.json', 'w', encoding='utf-8').write(out)
print(sum(len(v) for v in catalogue.values()), 'rules in', len(catalogue), 'categories')
