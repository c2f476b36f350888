package org.example.textkit;

import java.util.Map;

public final class Template {

    public static String fill(String template, Map<String, String> values) {
        String result = template;
        for (String key : values.keySet()) {
            result = result.replace("{" + key + "}", values.get(key));
        }
        return result;
    }
}
