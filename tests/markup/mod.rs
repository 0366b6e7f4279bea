//! Checks shared by tests/plot.rs and tests/report.rs: SVG / HTML text is
//! well-formed (tags balanced and properly nested, `&` only in entities,
//! no raw `<` in text).

/// Checks that the tags of `text` (from its first `<svg`, or all of it)
/// nest: every open tag is closed in order, `<…/>` stands alone, void
/// HTML elements (`meta`) need no close; every `&` starts an entity.
/// Returns the element names in document order.
pub fn check_well_formed(text: &str) -> Result<Vec<String>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(lt) = rest.find('<') {
        check_entities(&rest[..lt], offset)?;
        let gt = rest[lt..]
            .find('>')
            .ok_or_else(|| format!("unclosed `<` at byte {}", offset + lt))?;
        let tag = &rest[lt + 1..lt + gt];
        if tag.contains('<') {
            return Err(format!("`<` inside a tag at byte {}", offset + lt));
        }
        if tag.starts_with('!') || tag.starts_with('?') {
            // doctype, comment, declaration
        } else if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim();
            match stack.pop() {
                Some(open) if open == name => {}
                other => {
                    return Err(format!(
                        "`</{name}>` at byte {} closes {other:?}",
                        offset + lt
                    ));
                }
            }
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            check_entities(tag, offset + lt)?;
            names.push(name.clone());
            if !tag.ends_with('/') && name != "meta" {
                stack.push(name);
            }
        }
        offset += lt + gt + 1;
        rest = &rest[lt + gt + 1..];
    }
    check_entities(rest, offset)?;
    if !stack.is_empty() {
        return Err(format!("unclosed elements at the end: {stack:?}"));
    }
    Ok(names)
}

fn check_entities(text: &str, offset: usize) -> Result<(), String> {
    for (i, _) in text.match_indices('&') {
        let after = &text[i + 1..];
        let ok = ["amp;", "lt;", "gt;", "quot;", "#39;", "apos;"]
            .iter()
            .any(|e| after.starts_with(e));
        if !ok {
            return Err(format!("bare `&` at byte {}", offset + i));
        }
    }
    Ok(())
}

/// The text content of every `<text …>…</text>` element, trimmed.
#[allow(dead_code)] // used by tests/plot.rs, not tests/report.rs
pub fn svg_texts(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let body = &rest[start..];
        let open_end = body.find('>').expect("well-formed") + 1;
        let close = body.find("</text>").expect("well-formed");
        out.push(body[open_end..close].trim().to_string());
        rest = &body[close..];
    }
    out
}
