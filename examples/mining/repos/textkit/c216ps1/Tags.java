package org.example.textkit;

import java.util.ArrayList;
import java.util.List;

public final class Tags {

    public static List<String> normalize(List<String> tags) {
        List<String> result = new ArrayList<>();
        for (String tag : tags) {
            String lower = tag.toLowerCase();
            result.add(lower);
        }
        return result;
    }
}
