package org.example.textkit;

import java.util.List;

public final class Joiner {

    public static String join(List<String> parts, String separator) {
        String result = "";
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                result += separator;
            }
            result += parts.get(i);
        }
        return result;
    }
}
